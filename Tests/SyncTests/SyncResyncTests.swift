import Foundation
import Logging
import SuiteCore
import SuiteTestSupport
import Sync
import Synchronization
import Testing

@testable import Documents

/// A replica whose checkpoint the server's pruned change log no longer reaches reads everything again.
@Suite struct SyncResyncTests {
    let directory: URL
    let engine: SQLiteDocumentEngine
    let server: DocumentStore
    let host: SyncHost

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory("sync-resync")
        // Every commit but the last is old enough to prune at once; a small index flushes (pruning stops at its
        // flush point) after a few commits.
        engine = try SQLiteDocumentEngine(
            path: directory.appendingPathComponent("server.sqlite").path, durability: .normal,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: 3, directRunThreshold: 6, fanIn: 2, blockBytes: 16),
            changeLogRetention: ChangeLogRetention(maximumAge: .zero, minimumCount: 1))
        server = DocumentStore(engine: engine)
        host = SyncHost(store: server)
    }

    func replica(bus: EventBus? = nil) async throws -> (SyncClient, InProcessSyncTransport) {
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("replica.sqlite").path), bus: bus)
        let transport = InProcessSyncTransport(host: host)
        return (try await SyncClient(store: store, transport: transport), transport)
    }

    func data(_ store: DocumentStore, _ path: String) async throws -> DocumentData? {
        try await store.document(path).getDocument().data
    }

    @Test func aPrunedLogMakesThePullResyncKeepingPendingWrites() async throws {
        for path in ["users/a", "users/b", "users/c/notes/n1"] { _ = try await server.document(path).setData(["v": 1]) }
        let bus = EventBus()
        let resyncs = Mutex<[Int64]>([])
        let token = bus.subscribe(named: "sync.resync", as: SyncResyncEvent.Payload.self) { payload, _ in
            resyncs.withLock { $0.append(payload.sequence) }
        }
        defer { token.cancel() }
        let (replica, link) = try await replica(bus: bus)
        try await replica.sync()
        #expect(try await data(replica.store, "users/b")?["v"] == .int(1))
        let checkpoint = replica.status.checkpoint

        // Offline: the server moves on and prunes its log past the replica's checkpoint; the replica writes.
        link.isOnline = false
        try await replica.write([
            .object(["op": "update", "path": "users/a", "transforms": ["v": ["increment": 10]]]),
            .object(["op": "set", "path": "users/e", "data": ["local": true]]),
        ])
        try await server.document("users/b").delete()
        _ = try await server.document("users/a").updateData(["v": .increment(100)])
        _ = try await server.document("users/d").setData(["v": 4])
        _ = try await server.document("users/c/notes/n2").setData(["v": 2])
        for i in 0..<10 { _ = try await server.document("log/\(i)").setData(["i": .int(Int64(i))]) }
        engine.waitForIndexMaintenance()
        #expect(try await engine.pruneChangeLog() > 0)
        await #expect(throws: SyncError.self) { _ = try await host.changes(since: checkpoint) { _ in true } }

        link.isOnline = true
        try await replica.pull()
        #expect(try await data(replica.store, "users/b") == nil, "deleted on the server while the log was pruned")
        #expect(try await data(replica.store, "users/a")?["v"] == .int(111), "the server's 101, the pending +10 on top")
        #expect(try await data(replica.store, "users/d")?["v"] == .int(4))
        #expect(try await data(replica.store, "users/c/notes/n2")?["v"] == .int(2))
        #expect(try await data(replica.store, "users/e")?["local"] == .bool(true), "a pending new document stays")
        #expect(replica.status.pending == 1)
        #expect(replica.status.checkpoint == (try await server.lastSequence()))
        #expect(resyncs.withLock { $0 } == [replica.status.checkpoint])

        // It goes on as usual: the outbox reaches the server, the feed follows without another resync.
        try await replica.sync()
        #expect(try await data(server, "users/a")?["v"] == .int(111))
        #expect(try await data(server, "users/e")?["local"] == .bool(true))
        _ = try await server.document("users/f").setData(["v": 6])
        try await replica.pull()
        #expect(try await data(replica.store, "users/f")?["v"] == .int(6))
        #expect(resyncs.withLock { $0.count } == 1)
    }

    @Test func snapshotPagesWalkOnlyTheRootsAndReturnEachReadableDocumentOnce() async throws {
        let paths = [
            "users/ana", "users/ana/notes/1", "users/ana/notes/2", "users/ana/notes/2/tags/x", "users/ana/trips/t",
            "users/anaconda", "users/bob", "users/bob/notes/1", "public/p1", "public/p2", "other/o",
        ]
        for path in paths { _ = try await server.document(path).setData(["path": .string(path)]) }
        // A document below documents that do not exist (Firestore's missing documents) is found too.
        _ = try await server.document("users/ana/missing/m/deep/d").setData(["v": 1])
        let roots = [["users", "ana"], ["public"], ["users", "ana", "notes"]]
        let hidden = "users/ana/notes/1"
        let expected = [
            "public/p1", "public/p2", "users/ana", "users/ana/missing/m/deep/d", "users/ana/notes/2",
            "users/ana/notes/2/tags/x", "users/ana/trips/t",
        ]
        for limit in [1, 2, 3, 500] {
            var seen: [String] = []
            var after: String?
            repeat {
                let page = try await host.snapshot(roots: roots, after: after, limit: limit) { $0 != hidden }
                #expect(page.documents.count <= limit)
                seen += page.documents.map(\.path)
                after = page.next
            } while after != nil
            #expect(seen == expected, "pages of \(limit)")
        }
        let all = try await host.snapshot(roots: [[]], after: nil, limit: 500) { _ in true }
        #expect(all.documents.map(\.path) == (paths + ["users/ana/missing/m/deep/d"]).sorted())
        await #expect(throws: SyncError.self) {
            _ = try await host.snapshot(roots: [[]], after: "not/a/document/path/", limit: 5) { _ in true }
        }
    }
}
