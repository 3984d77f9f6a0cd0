import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Sync
import Synchronization
import Testing

/// Replicas syncing with a server store through the in-process transport (real SQLite files on both sides).
@Suite struct SyncTests {
    struct World {
        let server: DocumentStore
        let host: SyncHost
        let directory: URL

        init() throws {
            directory = try TestSupport.makeTemporaryDirectory("sync")
            server = DocumentStore(
                engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("server.sqlite").path))
            host = SyncHost(store: server)
        }

        /// A replica on a file of its own (reopened when the name repeats), with its transport.
        func replica(_ name: String, bus: EventBus? = nil) async throws -> (SyncClient, InProcessSyncTransport) {
            let store = DocumentStore(
                engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("\(name).sqlite").path),
                bus: bus)
            let transport = InProcessSyncTransport(host: host)
            return (try await SyncClient(store: store, transport: transport), transport)
        }

        func data(_ store: DocumentStore, _ path: String) async throws -> DocumentData? {
            try await store.document(path).getDocument().data
        }
    }

    static func update(_ path: String, _ transforms: JSONValue = .object([:]), data: JSONValue? = nil) -> JSONValue {
        var object: [String: JSONValue] = ["op": "update", "path": .string(path)]
        if case .object(let fields) = transforms, !fields.isEmpty { object["transforms"] = transforms }
        if let data { object["data"] = data }
        return .object(object)
    }

    @Test func twoOfflineReplicasConvergeWithIncrementsSummedAndFieldsMerged() async throws {
        let world = try World()
        _ = try await world.server.document("users/ana").setData(["points": 0, "name": "Ana"])
        _ = try await world.server.document("users/gone").setData(["x": 1])
        let (a, linkA) = try await world.replica("a")
        let (b, linkB) = try await world.replica("b")
        try await a.sync()
        try await b.sync()
        #expect(try await world.data(a.store, "users/ana")?["points"] == .int(0))

        linkA.isOnline = false
        linkB.isOnline = false
        for _ in 0..<5 {
            try await a.write([Self.update("users/ana", ["points": ["increment": 1]])])
            try await b.write([Self.update("users/ana", ["points": ["increment": 1]])])
        }
        try await a.write([Self.update("users/ana", data: ["city": "Lyon"])])
        try await b.write([Self.update("users/ana", data: ["team": "blue"])])
        try await a.write([.object(["op": "set", "path": "users/ana/notes/n1", "data": ["text": "from a"]])])
        try await b.write([.object(["op": "delete", "path": "users/gone"])])
        // Local writes show at once, and are pending.
        #expect(try await world.data(a.store, "users/ana")?["points"] == .int(5))
        #expect(try await a.hasPendingWrites("users/ana"))
        await #expect(throws: SyncError.self) { try await a.sync() }
        #expect(a.status.offline && a.status.pending == 7)

        linkA.isOnline = true
        linkB.isOnline = true
        try await a.sync()
        try await b.sync()
        try await a.sync()
        let server = try #require(try await world.data(world.server, "users/ana"))
        #expect(server["points"] == .int(10))
        #expect(server["city"] == "Lyon" && server["team"] == "blue" && server["name"] == "Ana")
        for replica in [a, b] {
            #expect(try await world.data(replica.store, "users/ana") == server)
            #expect(try await world.data(replica.store, "users/ana/notes/n1")?["text"] == "from a")
            #expect(try await world.data(replica.store, "users/gone") == nil)
            #expect(try await replica.pendingPaths().isEmpty && replica.status.pending == 0)
        }
        #expect(try await world.data(world.server, "users/gone") == nil)
    }

    @Test func aRetriedPushIsAppliedOnce() async throws {
        let world = try World()
        _ = try await world.server.document("counters/c").setData(["n": 0])
        let mutation = SyncMutation(id: "m1", writes: [Self.update("counters/c", ["n": ["increment": 1]])])
        let first = try await world.host.push(SyncPushRequest(client: "c1", mutations: [mutation])) { _ in }
        let again = try await world.host.push(SyncPushRequest(client: "c1", mutations: [mutation])) { _ in }
        #expect(first.results.map(\.status) == [.applied])
        #expect(again.results.map(\.status) == [.duplicate])
        #expect(again.results.first?.sequence == first.results.first?.sequence)
        #expect(try await world.data(world.server, "counters/c")?["n"] == .int(1))
        // Another client may use the same mutation id.
        let other = try await world.host.push(SyncPushRequest(client: "c2", mutations: [mutation])) { _ in }
        #expect(other.results.map(\.status) == [.applied])
        // The markers never reach the change feed.
        let feed = try await world.host.changes(since: 0) { _ in true }
        #expect(feed.changes.allSatisfy { !$0.path.hasPrefix("_sync/") })
    }

    @Test func aRejectedWriteRestoresTheServersVersionAndSaysSo() async throws {
        let world = try World()
        let bus = EventBus()
        let conflicts = ConflictLog(bus)
        let (a, link) = try await world.replica("a", bus: bus)
        link.isOnline = false
        // Offline, the replica creates a document the server gets first from someone else.
        try await a.write([
            .object(["op": "set", "path": "users/ana", "data": ["by": "a"], "precondition": ["exists": false]])
        ])
        _ = try await world.server.document("users/ana").setData(["by": "server"])
        link.isOnline = true
        try await a.sync()
        #expect(try await world.data(a.store, "users/ana")?["by"] == "server")
        #expect(conflicts.events.withLock { $0.first?.paths } == ["users/ana"])
        #expect(a.status.pending == 0)
        conflicts.subscription.cancel()
    }

    @Test func theOutboxAndCheckpointSurviveAReopenAndPendingWritesAreRebased() async throws {
        let world = try World()
        _ = try await world.server.document("users/ana").setData(["points": 1])
        do {
            let (a, link) = try await world.replica("a")
            try await a.sync()
            link.isOnline = false
            try await a.write([Self.update("users/ana", ["points": ["increment": 10]])])
            await a.store.close()
        }
        // Meanwhile the server moves on.
        _ = try await world.server.document("users/ana").updateData(["points": .increment(100)])
        let (again, _) = try await world.replica("a")
        #expect(again.status.pending == 1)
        // A pull first: the server's 101, with the pending +10 on top.
        try await again.pull()
        #expect(try await world.data(again.store, "users/ana")?["points"] == .int(111))
        try await again.push()
        try await again.pull()
        #expect(try await world.data(world.server, "users/ana")?["points"] == .int(111))
        #expect(try await world.data(again.store, "users/ana")?["points"] == .int(111))
    }

    @Test func badWritesAreRefusedBeforeAnythingIsQueued() async throws {
        let world = try World()
        let (a, _) = try await world.replica("a")
        for bad: [JSONValue] in [
            [],
            [.object(["op": "set"])],
            [.object(["op": "set", "path": "_sync/state", "data": ["x": 1]])],
            [.object(["op": "update", "path": "users/a", "data": ["x": 1], "precondition": ["version": 3]])],
            [.object(["op": "sett", "path": "users/a", "data": ["x": 1]])],
        ] {
            await #expect(throws: (any Error).self) { try await a.write(bad) }
        }
        let paths = try await a.pendingPaths()
        #expect(a.status.pending == 0 && paths.isEmpty)
    }

    @Test func everyCommitOfTheReplicaIsQueuedWithItsTransformsAndTransactionsGoByServerOrder() async throws {
        let world = try World()
        _ = try await world.server.document("users/ana").setData(["points": 1, "tags": ["a"], "old": true])
        let (a, link) = try await world.replica("a")
        try await a.sync()
        link.isOnline = false
        let ana = try a.store.document("users/ana")
        // Writes through the Documents API, not through `write`: single writes, nested transforms, a transaction.
        _ = try await ana.updateData([
            "points": .increment(2), "tags": .arrayUnion(["b"]), "old": .delete, "seen": .serverTimestamp,
        ])
        _ = try await a.store.document("users/ana/stats/today").setData(
            ["counts": .map(["visits": .increment(1), "label": "today"])], merge: true)
        try await a.store.runTransaction { tx in
            let points = try await tx.getDocument(ana).get("points", as: Int64.self) ?? 0
            try tx.updateData(["double": .value(.int(points * 2))], forDocument: ana)
        }
        #expect(a.status.pending == 3)
        // Meanwhile the server changes the document: the transaction's read version no longer matches there.
        _ = try await world.server.document("users/ana").updateData(["points": .increment(10)])
        link.isOnline = true
        try await a.sync()
        let server = try #require(try await world.data(world.server, "users/ana"))
        #expect(server["points"] == .int(13))
        #expect(server["tags"] == .array(["a", "b"]) && server["old"] == nil && server["seen"] != nil)
        #expect(server["double"] == .int(6))  // computed locally, applied in the server's order
        let stats = try await world.data(world.server, "users/ana/stats/today")
        #expect(stats?["counts"] == .map(["visits": .int(1), "label": "today"]))
        #expect(try await world.data(a.store, "users/ana") == server)
        #expect(a.status.pending == 0)
    }

    @Test func oneFailingMutationInAPushLeavesTheOthersApplied() async throws {
        let world = try World()
        _ = try await world.server.document("counters/c").setData(["n": 0])
        let increment = Self.update("counters/c", ["n": ["increment": 1]])
        let mutations = [
            SyncMutation(id: "m1", writes: [increment]),
            SyncMutation(
                id: "m2",
                writes: [
                    increment,
                    .object(["op": "set", "path": "counters/c", "data": [:], "precondition": ["exists": false]]),
                ]),
            SyncMutation(id: "m3", writes: [increment]),
            SyncMutation(id: "m1", writes: [increment]),
            SyncMutation(id: "m4", writes: [.object(["op": "set", "path": "_sync/x/y/z", "data": [:]])]),
        ]
        let response = try await world.host.push(SyncPushRequest(client: "c1", mutations: mutations)) { _ in }
        #expect(response.results.map(\.status) == [.applied, .rejected, .applied, .duplicate, .rejected])
        #expect(try await world.data(world.server, "counters/c")?["n"] == .int(2))
    }

    @Test func aWriteReplacedByAnotherReplicasLaterWriteIsAConflictWithBothVersions() async throws {
        let world = try World()
        let bus = EventBus()
        let conflicts = ConflictLog(bus)
        let (a, _) = try await world.replica("a", bus: bus)
        let (b, _) = try await world.replica("b")
        try await a.write([.object(["op": "set", "path": "days/d1", "data": ["status": "working", "by": "a"]])])
        try await a.push()
        try await b.write([.object(["op": "set", "path": "days/d1", "data": ["status": "break", "by": "b"]])])
        try await b.sync()
        // Reopened, as a later command would: the acknowledgement is kept in the replica's store.
        await a.store.close()
        let (again, _) = try await world.replica("a", bus: bus)
        try await again.pull()
        let conflict = try #require(conflicts.events.withLock { $0.first })
        #expect(conflict.paths == ["days/d1"] && conflict.reason.contains("later write"))
        #expect(conflict.ours?["by"] == "a" && conflict.theirs?["by"] == "b")
        #expect(try await world.data(again.store, "days/d1")?["by"] == "b")
        // The winner sees no conflict.
        try await b.pull()
        #expect(conflicts.events.withLock { $0.count } == 1)
        conflicts.subscription.cancel()
    }

    @Test func snapshotsShowPendingWritesUntilTheServerHasThem() async throws {
        let world = try World()
        let (a, link) = try await world.replica("a")
        link.isOnline = false
        try await a.write([.object(["op": "set", "path": "users/ana", "data": ["points": 1]])])
        _ = try await world.server.document("users/bob").setData(["points": 2])
        #expect(try await a.store.document("users/ana").getDocument().metadata.hasPendingWrites)
        let listener = try a.store.document("users/ana").snapshots()
        var updates = listener.makeAsyncIterator()
        #expect(try await updates.next()?.metadata.hasPendingWrites == true)
        let query = try await a.store.collection("users").query.getDocuments()
        #expect(query.metadata.hasPendingWrites && query.documents.map(\.metadata.hasPendingWrites) == [true])

        link.isOnline = true
        try await a.sync()
        #expect(try await a.store.document("users/ana").getDocument().metadata.hasPendingWrites == false)
        #expect(try await a.store.document("users/bob").getDocument().metadata.hasPendingWrites == false)
        // The pull rewrote the document with the server's version: the listener says it is confirmed.
        #expect(try await updates.next()?.metadata.hasPendingWrites == false)
        let after = try await a.store.collection("users").query.getDocuments()
        #expect(!after.metadata.hasPendingWrites && after.count == 2)
    }

    @Test func aResolverKeepsOrReplacesAnOverriddenWrite() async throws {
        let world = try World()
        let bus = EventBus()
        let conflicts = ConflictLog(bus)
        let (a, _) = try await world.replica("a", bus: bus)
        let (b, _) = try await world.replica("b")
        a.setResolver { conflict in conflict.paths == ["days/d1"] ? .keepLocal : .replace(["merged": true]) }
        for path in ["days/d1", "days/d2"] {
            try await a.write([.object(["op": "set", "path": .string(path), "data": ["by": "a"]])])
        }
        try await a.push()
        for path in ["days/d1", "days/d2"] {
            try await b.write([.object(["op": "set", "path": .string(path), "data": ["by": "b"]])])
        }
        try await b.sync()
        try await a.pull()
        let resolutions = conflicts.events.withLock {
            Dictionary(uniqueKeysWithValues: $0.map { ($0.paths[0], $0.resolution) })
        }
        #expect(resolutions == ["days/d1": "local", "days/d2": "replaced"])
        #expect(try await world.data(a.store, "days/d1")?["by"] == "a")
        #expect(try await world.data(a.store, "days/d2")?["merged"] == true)
        // The choices are new local writes: the next sync sends them, and the other replica gets them.
        #expect(try await a.pendingPaths() == ["days/d1", "days/d2"])
        try await a.sync()
        try await b.sync()
        #expect(try await world.data(world.server, "days/d1")?["by"] == "a")
        #expect(try await world.data(b.store, "days/d2")?["merged"] == true)
        // Without a resolver the server's version stays, as before.
        a.setResolver(nil)
        try await b.write([.object(["op": "set", "path": "days/d1", "data": ["by": "b again"]])])
        try await b.sync()
        try await a.pull()
        #expect(try await world.data(a.store, "days/d1")?["by"] == "b again")
        #expect(conflicts.events.withLock { $0.last?.resolution } == "server")
        conflicts.subscription.cancel()
    }
}

/// The `sync.conflict` events a bus carries, as they arrive.
final class ConflictLog: Sendable {
    final class Events: Sendable {
        let list = Mutex<[SyncConflictEvent.Payload]>([])
        func withLock<T>(_ body: (inout [SyncConflictEvent.Payload]) -> T) -> T { list.withLock { body(&$0) } }
    }

    let events = Events()
    let subscription: Subscription

    init(_ bus: EventBus) {
        let events = events
        subscription = bus.subscribe(to: SyncConflictEvent.self) { event in
            events.withLock { $0.append(event.payload) }
        }
    }
}

/// A commit larger than a page of the feed (a replica asks for 200 changes; a push of 400 mutations commits together).
@Suite struct SyncLargeCommitTests {
    @Test("a commit larger than the page arrives whole, and the pages after it too")
    func largeCommitsArriveWhole() async throws {
        let world = try SyncTests.World()
        let (b, _) = try await world.replica("b")
        let batch = world.server.batch()
        for index in 0..<450 {
            batch.setData(["n": 1], forDocument: try world.server.document("users/ana/notes/\(index)"))
        }
        try await batch.commit()
        _ = try await world.server.document("users/ana/after/one").setData(["n": 2])
        let page = try await world.host.changes(since: 0, limit: 200) { _ in true }
        #expect(page.changes.count == 450)
        #expect(page.more)
        try await b.sync()
        var present = 0
        for index in 0..<450 where try await b.store.document("users/ana/notes/\(index)").getDocument().exists {
            present += 1
        }
        #expect(present == 450)
        #expect(try await world.data(b.store, "users/ana/after/one")?["n"] == .int(2))
    }
}
