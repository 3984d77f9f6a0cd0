import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import SuiteServer
import Testing

/// Database ids, `/metrics` and cost counters as Firestore-protocol calls see them.
@Suite struct DatabaseTests {
    static func commit(_ server: FirestoreTestServer, database: String, path: String, metadata: Metadata) async throws {
        try await server.withClient { client in
            var request = Google_Firestore_V1_CommitRequest()
            request.database = "projects/p/databases/\(database)"
            var write = Google_Firestore_V1_Write()
            write.update.name = "projects/p/databases/\(database)/documents/\(path)"
            write.update.fields = ["n": FirestoreTestServer.value(1)]
            request.writes = [write]
            _ = try await client.commit(request, metadata: metadata)
        }
    }

    @Test func anAdminCreatesADatabaseByUsingItOthersGetNotFound() async throws {
        let server = try await FirestoreTestServer.start()
        let token = try await server.accounts.add("ana")
        let user: Metadata = ["authorization": "Bearer \(token)"]
        let missing = await #expect(throws: RPCError.self) {
            try await Self.commit(server, database: "team-db", path: "users/ana", metadata: user)
        }
        #expect(missing?.code == .notFound)
        #expect(missing?.message == "The database team-db does not exist.")
        try await Self.commit(server, database: "team-db", path: "users/ana", metadata: FirestoreTestServer.owner)
        // Now it exists: the user writes their own document there; the default database does not see it.
        try await Self.commit(server, database: "team-db", path: "users/ana/notes/1", metadata: user)
        #expect(try await server.store.document("users/ana").getDocument().exists == false)
        let invalid = await #expect(throws: RPCError.self) {
            try await Self.commit(server, database: "Bad_Id", path: "users/ana", metadata: FirestoreTestServer.owner)
        }
        #expect(invalid?.code == .invalidArgument)
        await server.stop()
    }

    @Test func metricsCountCallsByMethodAndStatusAndCostsCountTheDocuments() async throws {
        let server = try await FirestoreTestServer.start()
        try await Self.commit(server, database: "(default)", path: "users/ana", metadata: FirestoreTestServer.owner)
        _ = try? await server.withClient { client in
            var request = Google_Firestore_V1_GetDocumentRequest()
            request.name = FirestoreTestServer.name("users/nobody")
            return try await client.getDocument(request, metadata: FirestoreTestServer.owner)
        }
        let text = server.metrics.render()
        #expect(text.contains(#"suite_grpc_calls_total{method="Commit",code="OK"} 1"#))
        #expect(text.contains(#"suite_grpc_calls_total{method="GetDocument",code="NOT_FOUND"} 1"#))
        let costs = server.store.sessionCosts
        #expect(costs.total.writes == 1)
        #expect(costs.total.reads >= 1)
        await server.stop()
    }
}
