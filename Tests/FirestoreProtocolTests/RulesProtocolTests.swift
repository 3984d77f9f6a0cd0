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

    @Test func aListenedDocumentTheCallerMayNoLongerReadEndsTheTarget() async throws {
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /notes/{id} { allow get: if resource == null || resource.data.visible == true; }
              }
            }
            """
        let server = try await FirestoreTestServer.start(rules: .firestore(try FirestoreRules(source: rules)))
        _ = try await server.store.document("notes/n").setData(["visible": true])
        let store = server.store
        let removal: Google_Firestore_V1_TargetChange? = try await server.conversation(
            { client, produce, handle in
                try await client.listen(metadata: [:], requestProducer: produce, onResponse: handle)
            }
        ) { (send: @Sendable (Google_Firestore_V1_ListenRequest) -> Void, next) in
            var target = Google_Firestore_V1_Target()
            target.targetID = 7
            target.documents.documents = [FirestoreTestServer.name("notes/n")]
            var request = Google_Firestore_V1_ListenRequest()
            request.database = FirestoreTestServer.project
            request.addTarget = target
            send(request)
            var sawDocument = false
            while let response = try await next() {
                switch response.responseType {
                case .documentChange(let change)?:
                    #expect(change.document.fields["visible"]?.booleanValue == true)
                    sawDocument = true
                    // Now hidden: the next version may not be read.
                    _ = try await store.document("notes/n").setData(["visible": false])
                case .targetChange(let change)? where change.targetChangeType == .remove:
                    #expect(sawDocument)
                    return change
                default:
                    continue
                }
            }
            return nil
        }
        #expect(removal?.targetIds == [7])
        #expect(removal?.cause.code == Int32(RPCError.Code.permissionDenied.rawValue))
        await server.stop()
    }
}
