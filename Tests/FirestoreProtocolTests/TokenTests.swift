import Crypto
import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import JWTKit
import SuiteServer
import Testing
import _CryptoExtras

/// JWTs of an app's identity provider: HS256, RS256 and ES256 tokens sign their `sub` in; a wrong signature,
/// issuer, audience or an expired token is UNAUTHENTICATED; the rules apply to the uid.
@Suite struct TokenTests {
    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var iss: IssuerClaim
        var aud: AudienceClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static let issuer = "https://securetoken.google.com/demo"
    static let audience = "demo"

    static func claims(
        sub: String = "ana", issuer: String = issuer, audience: String = audience, expiresIn: Double = 600
    )
        -> Claims
    {
        Claims(
            sub: .init(value: sub), exp: .init(value: Date().addingTimeInterval(expiresIn)), iss: .init(value: issuer),
            aud: .init(value: [audience]))
    }

    /// Commits `users/{path}` with `token`; the status code, or nil on success.
    static func write(_ server: FirestoreTestServer, token: String, path: String) async -> RPCError.Code? {
        do {
            try await server.withClient { client in
                var request = Google_Firestore_V1_CommitRequest()
                request.database = FirestoreTestServer.project
                request.writes = [FirestoreTestServer.update(path, ["n": FirestoreTestServer.value(1)])]
                _ = try await client.commit(request, metadata: ["authorization": "Bearer \(token)"])
            }
            return nil
        } catch let error as RPCError {
            return error.code
        } catch {
            return .unknown
        }
    }

    @Test func hs256TokensSignTheirSubjectIn() async throws {
        let secret = "a-long-shared-secret-of-the-app-0123456789"
        let server = try await FirestoreTestServer.start(
            tokens: FirestoreTokens(
                issuer: Self.issuer, audience: Self.audience, keys: [.init(algorithm: .hs256, material: secret)]))
        let signer = JWTKeyCollection()
        await signer.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        let good = try await signer.sign(Self.claims())
        #expect(await Self.write(server, token: good, path: "users/ana") == nil)
        #expect(await Self.write(server, token: good, path: "users/bob") == .permissionDenied)
        let expired = try await signer.sign(Self.claims(expiresIn: -60))
        #expect(await Self.write(server, token: expired, path: "users/ana") == .unauthenticated)
        let otherIssuer = try await signer.sign(Self.claims(issuer: "https://evil.example"))
        #expect(await Self.write(server, token: otherIssuer, path: "users/ana") == .unauthenticated)
        let otherAudience = try await signer.sign(Self.claims(audience: "another-project"))
        #expect(await Self.write(server, token: otherAudience, path: "users/ana") == .unauthenticated)
        let forger = JWTKeyCollection()
        await forger.add(hmac: HMACKey(from: "not-the-secret-but-long-enough-0123456789"), digestAlgorithm: .sha256)
        let forged = try await forger.sign(Self.claims(sub: "admin"))
        #expect(await Self.write(server, token: forged, path: "users/admin") == .unauthenticated)
        #expect(try await server.store.document("users/ana").getDocument().exists)
        #expect(try await server.store.document("users/bob").getDocument().exists == false)
        await server.stop()
    }

    @Test func rs256AndEs256TokensVerifyWithTheirPublicKeysByKid() async throws {
        let rsa = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let ecdsa = ES256PrivateKey()
        let server = try await FirestoreTestServer.start(
            tokens: FirestoreTokens(
                issuer: Self.issuer, audience: Self.audience,
                keys: [
                    .init(algorithm: .rs256, kid: "rsa-1", material: try rsa.publicKey.pemRepresentation),
                    .init(algorithm: .es256, kid: "ec-1", material: ecdsa.publicKey.pemRepresentation),
                ]))
        let signers = JWTKeyCollection()
        await signers.add(rsa: rsa, digestAlgorithm: .sha256, kid: "rsa-1")
        await signers.add(ecdsa: ecdsa, kid: "ec-1")
        let byRSA = try await signers.sign(Self.claims(sub: "ana"), kid: "rsa-1")
        let byEC = try await signers.sign(Self.claims(sub: "bob"), kid: "ec-1")
        #expect(await Self.write(server, token: byRSA, path: "users/ana") == nil)
        #expect(await Self.write(server, token: byEC, path: "users/bob") == nil)
        await server.stop()
    }

    @Test(arguments: [
        FirestoreTokens.Key(algorithm: .rs256, kid: "k", material: "-----BEGIN PUBLIC KEY-----\nnope\n"),
        FirestoreTokens.Key(algorithm: .hs256, material: "short"),
    ])
    func aKeyThatCannotBeUsedFailsTheStartNamingIt(_ key: FirestoreTokens.Key) async throws {
        let error = await #expect(throws: ServerError.self) {
            _ = try await FirestoreTestServer.start(
                tokens: FirestoreTokens(issuer: Self.issuer, audience: Self.audience, keys: [key]))
        }
        #expect(error?.message.contains("key 1 (\(key.algorithm.rawValue)") == true)
    }
}
