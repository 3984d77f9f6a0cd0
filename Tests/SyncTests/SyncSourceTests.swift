import Documents
import Foundation
import Observation
import SuiteCore
import SuiteTestSupport
import Sync
import Testing

/// Firestore's `isFromCache` on a replica: `true` from the moment it opens and after the server could not be reached,
/// `false` once a pull succeeded. Through the in-process transport, like the other replica tests.
@Suite(.timeLimit(.minutes(1)))
struct SyncSourceTests {
    @Test func aReplicaIsFromCacheUntilAPullConfirmsItsData() async throws {
        let world = try SyncTests.World()
        _ = try await world.server.document("users/ana").setData(["points": 1])
        let (replica, link) = try await world.replica("a")
        var updates = replica.store.isFromCacheUpdates().makeAsyncIterator()
        #expect(replica.store.isFromCache)
        #expect(await updates.next() == true)
        #expect(try await replica.store.document("users/ana").getDocument().metadata.isFromCache)

        try await replica.pull()
        #expect(!replica.store.isFromCache)
        #expect(await updates.next() == false)
        let confirmed = try await replica.store.document("users/ana").getDocument()
        #expect(confirmed.exists && !confirmed.metadata.isFromCache)
        #expect(try await replica.store.collection("users").query.getDocuments().metadata.isFromCache == false)

        link.isOnline = false
        try await replica.write([.object(["op": "set", "path": "users/bo", "data": ["points": 2]])])
        await #expect(throws: SyncError.self) { try await replica.sync() }
        #expect(replica.store.isFromCache)
        #expect(await updates.next() == true)
        let offline = try await replica.store.document("users/bo").getDocument()
        #expect(offline.metadata.isFromCache && offline.metadata.hasPendingWrites)

        link.isOnline = true
        try await replica.sync()
        #expect(!replica.store.isFromCache)
        #expect(await updates.next() == false)
        #expect(try await world.data(world.server, "users/bo")?["points"] == .int(2))
    }

    @Test func aPushThatFailsOfflineMarksTheReplicaAndOneThatSucceedsDoesNotConfirmIt() async throws {
        let world = try SyncTests.World()
        let (replica, link) = try await world.replica("a")
        try await replica.write([.object(["op": "set", "path": "users/ana", "data": ["points": 1]])])
        try await replica.push()
        #expect(replica.store.isFromCache, "a push says nothing of what the server holds")
        try await replica.pull()
        #expect(!replica.store.isFromCache)
        link.isOnline = false
        try await replica.write([.object(["op": "set", "path": "users/ana", "data": ["points": 2]])])
        await #expect(throws: SyncError.self) { try await replica.push() }
        #expect(replica.store.isFromCache)
    }

    @Test func aReopenedReplicaIsFromCacheAgain() async throws {
        let world = try SyncTests.World()
        let (first, _) = try await world.replica("a")
        try await first.sync()
        #expect(!first.store.isFromCache)
        first.detach()
        await first.store.close()
        let (reopened, _) = try await world.replica("a")
        #expect(reopened.store.isFromCache)
        await reopened.store.close()
    }

    @Test @MainActor func aLiveQueryOnAReplicaReportsWhetherTheServerConfirmedIt() async throws {
        let world = try SyncTests.World()
        _ = try await world.server.document("users/ana").setData(["points": 1])
        let (replica, link) = try await world.replica("a")
        let users = LiveQuery(try replica.store.collection("users"))
        let ana = LiveDocument(try replica.store.document("users/ana"))
        await TestSupport.waitUntil { !users.isLoading && !ana.isLoading }
        #expect(users.isFromCache && users.documents.isEmpty && ana.isFromCache && !ana.exists)
        #expect(users.snapshot?.metadata.isFromCache == true)

        try await replica.pull()
        await TestSupport.waitUntil { !users.isFromCache && users.documents.count == 1 && ana.exists }
        #expect(!ana.isFromCache)

        link.isOnline = false
        await #expect(throws: SyncError.self) { try await replica.pull() }
        await TestSupport.waitUntil { users.isFromCache && ana.isFromCache }
        #expect(users.documents.count == 1, "offline, the saved results stay")

        link.isOnline = true
        _ = try await world.server.document("users/bo").setData(["points": 2])
        try await replica.pull()
        await TestSupport.waitUntil { !users.isFromCache && users.documents.map(\.documentID) == ["ana", "bo"] }
        #expect(users.error == nil && ana.error == nil)
    }
}
