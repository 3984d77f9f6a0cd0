import Documents
import FirestoreProtocol
import GRPCCore
import SuiteServer
import Testing

/// Firestore's rules on the gRPC protocol: a signed-out caller is `request.auth == null`, a user's token its uid,
/// and a refusal is PERMISSION_DENIED.
@Suite struct RulesProtocolTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /public/{id} { allow read: if true; allow write: if request.auth != null; }
            match /private/{uid} { allow read, write: if request.auth != null && request.auth.uid == uid; }
          }
        }
        """

    static func get(_ path: String) -> Google_Firestore_V1_GetDocumentRequest {
        var request = Google_Firestore_V1_GetDocumentRequest()
        request.name = FirestoreTestServer.name(path)
        return request
    }

    static func code(_ body: () async throws -> Void) async -> RPCError.Code? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return error.code
        } catch {
            return .unknown
        }
    }

    @Test func signedOutCallersAreRequestAuthNull() async throws {
        let server = try await FirestoreTestServer.start(rules: .firestore(try FirestoreRules(source: Self.rules)))
        _ = try await server.store.document("public/news").setData(["title": "hello"])
        _ = try await server.store.document("private/ana").setData(["secret": 1])
        let token = try await server.accounts.add("ana")
        try await server.withClient { client in
            // No authorization at all: public reads pass, writes and private reads are refused.
            let news = try await client.getDocument(Self.get("public/news"), metadata: [:]) { try $0.message }
            #expect(news.fields["title"]?.stringValue == "hello")
            #expect(
                await Self.code {
                    _ = try await client.getDocument(Self.get("private/ana"), metadata: [:]) { try $0.message }
                } == .permissionDenied)
            var commit = Google_Firestore_V1_CommitRequest()
            commit.database = FirestoreTestServer.project
            commit.writes = [FirestoreTestServer.update("public/x", ["n": FirestoreTestServer.value(1)])]
            let anonymousCommit = commit
            #expect(
                await Self.code { _ = try await client.commit(anonymousCommit, metadata: [:]) { try $0.message } }
                    == .permissionDenied)
            // ana's token: her own document and a public write.
            let signedIn: Metadata = ["authorization": "Bearer \(token)"]
            let mine = try await client.getDocument(Self.get("private/ana"), metadata: signedIn) { try $0.message }
            #expect(mine.fields["secret"]?.integerValue == 1)
            _ = try await client.commit(commit, metadata: signedIn) { try $0.message }
        }
        #expect(try await server.store.document("public/x").getDocument().exists)
        await server.stop()
    }

    @Test func pathRulesStillNeedAToken() async throws {
        let server = try await FirestoreTestServer.start()
        try await server.withClient { client in
            #expect(
                await Self.code {
                    _ = try await client.getDocument(Self.get("users/ana"), metadata: [:]) { try $0.message }
                } == .unauthenticated)
        }
        await server.stop()
    }
}
