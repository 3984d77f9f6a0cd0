import Foundation
import GRPCCore
public import JWTKit
public import SuiteCore

/// JSON Web Tokens an app's identity provider signs (Firebase Authentication's ID tokens, or another issuer's): a
/// token verified with one of the configured keys, issued by `issuer` for `audience` and not expired, signs in its
/// `sub` as the caller's uid. So an app keeps the tokens its users already have.
///
/// ```yaml
/// server:
///   firestore:
///     jwt:
///       issuer: https://securetoken.google.com/my-project
///       audience: my-project
///       keys:
///         - {algorithm: RS256, kid: "3f8a…", certificate-file: keys/google-3f8a.pem}   # or public-key-file
///         - {algorithm: HS256, secret-file: keys/dev-secret}
///         - {algorithm: ES256, public-key-file: keys/es256.pem}
/// ```
public struct FirestoreTokens: Sendable {
    /// One verification key.
    public struct Key: Sendable, Hashable {
        /// The signature algorithm.
        public enum Algorithm: String, Sendable, Hashable, CaseIterable {
            /// HMAC with SHA-256 and a shared secret.
            case hs256 = "HS256"
            /// RSA PKCS#1 v1.5 with SHA-256 (Firebase Authentication's ID tokens).
            case rs256 = "RS256"
            /// ECDSA on P-256 with SHA-256.
            case es256 = "ES256"
        }

        /// The algorithm.
        public var algorithm: Algorithm
        /// The key id (`kid`) tokens name, when the issuer rotates several keys.
        public var kid: String?
        /// PEM text of a public key or a certificate (RS256, ES256), or the secret (HS256).
        public var material: String

        /// Creates a key.
        public init(algorithm: Algorithm, kid: String? = nil, material: String) {
            self.algorithm = algorithm
            self.kid = kid
            self.material = material
        }
    }

    /// The `iss` every token must carry.
    public var issuer: String
    /// The `aud` every token must include.
    public var audience: String
    /// The keys tokens are verified with.
    public var keys: [Key]

    /// Creates a verifier's settings.
    public init(issuer: String, audience: String, keys: [Key]) {
        self.issuer = issuer
        self.audience = audience
        self.keys = keys
    }

    /// The key collection, checked: a key that does not parse is an error naming it.
    func collection() async throws -> JWTKeyCollection {
        let collection = JWTKeyCollection()
        for (index, key) in keys.enumerated() {
            let kid = key.kid.map { JWKIdentifier(string: $0) }
            do {
                switch key.algorithm {
                case .hs256:
                    // RFC 7518: an HS256 key is at least as long as the hash (jwt-kit traps on a shorter one).
                    guard key.material.utf8.count >= 32 else {
                        throw FirestoreTokenError(
                            "key \(index + 1) (HS256) is \(key.material.utf8.count) bytes; an HS256 secret needs at "
                                + "least 32")
                    }
                    await collection.add(hmac: HMACKey(from: key.material), digestAlgorithm: .sha256, kid: kid)
                case .rs256:
                    let rsa =
                        key.material.contains("CERTIFICATE")
                        ? try Insecure.RSA.PublicKey(certificatePEM: key.material)
                        : try Insecure.RSA.PublicKey(pem: key.material)
                    await collection.add(rsa: rsa, digestAlgorithm: .sha256, kid: kid)
                case .es256:
                    let ecdsa =
                        key.material.contains("CERTIFICATE")
                        ? try ES256PublicKey(certificate: key.material) : try ES256PublicKey(pem: key.material)
                    await collection.add(ecdsa: ecdsa, kid: kid)
                }
            } catch let error as FirestoreTokenError {
                throw error
            } catch {
                throw FirestoreTokenError(
                    "key \(index + 1) (\(key.algorithm.rawValue)\(key.kid.map { ", kid \($0)" } ?? "")) is not a valid "
                        + "\(key.algorithm == .hs256 ? "secret" : "PEM public key or certificate"): \(error)")
            }
        }
        return collection
    }
}

/// A JWT setting that cannot be used.
public struct FirestoreTokenError: SuiteDescribedError {
    /// What is wrong.
    public var message: String
    /// What to do about it.
    public var hint: String? { "check server.firestore.jwt in the configuration (issuer, audience, keys)" }
    init(_ message: String) { self.message = message }
}

/// Verifies tokens against the configured keys and claims.
struct TokenVerifier: Sendable {
    let settings: FirestoreTokens
    let keys: JWTKeyCollection

    struct Claims: JWTPayload {
        var sub: SubjectClaim
        var exp: ExpirationClaim
        var iss: IssuerClaim
        var aud: AudienceClaim

        func verify(using algorithm: some JWTAlgorithm) async throws { try exp.verifyNotExpired() }
    }

    /// Whether `token` has a JWT's shape (three base64url parts).
    static func looksLikeJWT(_ token: String) -> Bool { token.split(separator: ".").count == 3 }

    /// The uid (`sub`) of a valid token; UNAUTHENTICATED naming what is wrong otherwise.
    func uid(_ token: String) async throws -> String {
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self, iteratingKeys: true)
        } catch {
            throw RPCError(code: .unauthenticated, message: "The token is not valid: \(error)")
        }
        guard claims.iss.value == settings.issuer else {
            throw RPCError(
                code: .unauthenticated, message: "The token's issuer is '\(claims.iss.value)', not '\(settings.issuer)'"
            )
        }
        guard claims.aud.value.contains(settings.audience) else {
            throw RPCError(code: .unauthenticated, message: "The token is not for the audience '\(settings.audience)'")
        }
        guard !claims.sub.value.isEmpty else {
            throw RPCError(code: .unauthenticated, message: "The token names no subject (sub)")
        }
        return claims.sub.value
    }

    /// The payload of a token ``uid(_:)`` verified, as JSON: what Firestore's rules see in `request.auth.token`.
    static func claims(_ token: String) -> [String: JSONValue] {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return [:] }
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text),
            let json = try? JSONValue(parsing: String(decoding: data, as: UTF8.self))
        else { return [:] }
        return json.objectValue ?? [:]
    }
}
