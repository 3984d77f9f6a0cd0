import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import Testing

/// Interactive transactions over the protocol: a read-write one aborts when a document it read changed, a read-only
/// one never does.
@Suite struct TransactionTests {
    /// Begins a transaction, reads `users/a` in it, lets the store change it, then commits `writes`.
    static func readChangeCommit(readOnly: Bool, writes: [Google_Firestore_V1_Write]) async throws {
        let server = try await FirestoreTestServer.start()
        defer { Task { await server.stop() } }
        _ = try await server.store.document("users/a").setData(["n": 1])
        try await server.withClient { client in
            var begin = Google_Firestore_V1_BeginTransactionRequest()
            begin.database = FirestoreTestServer.project
            if readOnly { begin.options.readOnly = .init() } else { begin.options.readWrite = .init() }
            let transaction = try await client.beginTransaction(begin, metadata: FirestoreTestServer.owner).transaction
            var get = Google_Firestore_V1_BatchGetDocumentsRequest()
            get.database = FirestoreTestServer.project
            get.documents = [FirestoreTestServer.name("users/a")]
            get.transaction = transaction
            _ = try await client.batchGetDocuments(get, metadata: FirestoreTestServer.owner) { response in
                for try await _ in response.messages {}
            }
            _ = try await server.store.document("users/a").setData(["n": 2])  // another writer
            var commit = Google_Firestore_V1_CommitRequest()
            commit.database = FirestoreTestServer.project
            commit.transaction = transaction
            commit.writes = writes
            _ = try await client.commit(commit, metadata: FirestoreTestServer.owner)
        }
    }

    @Test func aReadWriteTransactionWhoseReadChangedIsAborted() async throws {
        let error = await #expect(throws: RPCError.self) {
            try await Self.readChangeCommit(
                readOnly: false, writes: [FirestoreTestServer.update("users/b", ["n": FirestoreTestServer.value(1)])])
        }
        #expect(error?.code == .aborted)
    }

    @Test func aReadOnlyTransactionNeverAbortsAndRefusesWrites() async throws {
        try await Self.readChangeCommit(readOnly: true, writes: [])
        let error = await #expect(throws: RPCError.self) {
            try await Self.readChangeCommit(
                readOnly: true, writes: [FirestoreTestServer.update("users/b", ["n": FirestoreTestServer.value(1)])])
        }
        #expect(error?.code == .invalidArgument)
    }
}
