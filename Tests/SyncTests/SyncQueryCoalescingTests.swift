import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Sync
import Testing

/// Query coalescing on a replica: it is the replica store's option, and every write the replica makes — a pull, a
/// local write — goes through the store, so a reused result is never staler than a fresh read.
@Suite(.timeLimit(.minutes(1)))
struct SyncQueryCoalescingTests {
    @Test func aReplicaSharesIdenticalQueriesAndSeesEveryPullAndWrite() async throws {
        let world = try SyncTests.World()
        _ = try await world.server.document("users/ana").setData(["city": "Paris"])
        var options = DocumentStore.Options()
        options.queryCoalescing = QueryCoalescing(isEnabled: true, reuseWindow: .seconds(3600))
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: world.directory.appendingPathComponent("c.sqlite").path),
            options: options)
        let replica = try await SyncClient(store: store, transport: InProcessSyncTransport(host: world.host))
        try await replica.pull()
        let paris = try store.collection("users").whereField("city", isEqualTo: "Paris")
        #expect(try await paris.getDocuments().count == 1)
        let before = store.sessionCosts
        #expect(try await paris.getDocuments().count == 1)
        #expect(store.sessionCosts.byKind["query"] == before.byKind["query"], "the second query shared the first's")
        #expect(store.sessionCosts.queries.coalesced == before.queries.coalesced + 1)

        _ = try await world.server.document("users/bo").setData(["city": "Paris"])
        try await replica.pull()
        #expect(try await paris.getDocuments().count == 2, "a pull is a write of the replica's store")
        try await replica.write([.object(["op": "set", "path": "users/cy", "data": ["city": "Paris"]])])
        let afterWrite = try await paris.getDocuments()
        #expect(afterWrite.count == 3 && afterWrite.metadata.hasPendingWrites)
        replica.detach()
        await store.close()
    }
}
