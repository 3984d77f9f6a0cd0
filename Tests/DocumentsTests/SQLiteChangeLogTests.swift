import Foundation
import GRDB
import Logging
import Testing

@_spi(Engine) @testable import Documents

extension SQLiteDocumentEngine {
    /// An engine whose index flushes after 3 pending operations (so the flush point keeps up) and whose change log
    /// keeps what `retention` says.
    static func smallLog(_ path: String, _ retention: ChangeLogRetention) throws -> SQLiteDocumentEngine {
        try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: 3, directRunThreshold: 6, fanIn: 2, blockBytes: 16),
            changeLogRetention: retention)
    }
}

@Suite("SQLite change-log retention")
struct SQLiteChangeLogTests {
    private func put(_ path: String, _ n: Int) -> DocumentMutation {
        DocumentMutation(
            path: path,
            kind: .put(body: Array("body \(n)".utf8), indexEntries: [IndexEntry(index: "n", key: [UInt8(n & 0xFF)])]))
    }

    /// 40 commits over 10 documents (rewritten, one deleted), at times 1…40.
    private func fill(_ engine: SQLiteDocumentEngine) async throws {
        for i in 1...40 {
            let mutation =
                i == 25 ? DocumentMutation(path: "c/d3", kind: .delete) : put("c/d\(i % 10)", i)
            _ = try await engine.commit([mutation], commitTime: Int64(i))
        }
        engine.waitForIndexMaintenance()
    }

    private func expectResync(_ engine: SQLiteDocumentEngine, after sequence: Int64) async {
        do {
            _ = try await engine.changes(after: sequence, limit: 100)
            Issue.record("changes after \(sequence) were answered, not refused")
        } catch let error as DocumentsError {
            #expect(error.code == .resyncRequired, "\(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("pruning keeps current bodies, the index, the latest records, and refuses reads before the horizon")
    func prunesToRetention() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.smallLog(path, ChangeLogRetention(maximumAge: .zero, minimumCount: 5))
        try await fill(engine)
        let documents = try await engine.documents(inCollection: "c", after: nil, limit: nil)
        let hits = try await engine.scan(IndexScan(index: "n"))
        let log = try await engine.changes(after: 0, limit: 100)

        let removed = try await engine.pruneChangeLog(now: 1_000, steps: 10)
        let status = try #require(try await engine.changeLogStatus())
        let flushed = try await engine.pool.read { db in try SQLiteIndexRuns.flushedThrough(db) }
        #expect(removed > 20)
        #expect(status.horizon > 0 && status.horizon <= 35, "\(status)")
        #expect(status.horizon < flushed >> 20)
        #expect(status.lastSequence == 40)
        // The rows still there: those after the horizon, and the current bodies (at most 9 documents).
        #expect(status.records <= Int(40 - status.horizon) + 9, "\(status)")
        #expect(status.records == 40 - removed)

        await expectResync(engine, after: 0)
        await expectResync(engine, after: status.horizon - 1)
        #expect(
            try await engine.changes(after: status.horizon, limit: 100) == log.filter { $0.sequence > status.horizon })
        #expect(try await engine.documents(inCollection: "c", after: nil, limit: nil) == documents)
        #expect(try await engine.scan(IndexScan(index: "n")) == hits)

        // Rewriting a document whose body sits below the horizon leaves that row to a later prune's sweep.
        for i in 41...60 { _ = try await engine.commit([put("c/d\(i % 10)", i)], commitTime: Int64(i)) }
        engine.waitForIndexMaintenance()
        _ = try await engine.pruneChangeLog(now: 1_000, steps: 10)
        let later = try #require(try await engine.changeLogStatus())
        #expect(later.horizon > status.horizon)
        // Every row left below the horizon holds a document's current body (the sweep removed the rewritten ones).
        let stale = try await engine.pool.read { db in
            try Int.fetchOne(
                db,
                sql: "SELECT count(*) FROM changes WHERE id < ? AND id NOT IN (SELECT change_id FROM documents)",
                arguments: [(later.horizon + 1) << 20])
        }
        #expect(stale == 0)
        #expect(later.records <= Int(60 - later.horizon) + 9, "\(later)")
        #expect(try await engine.commit([put("c/after", 1)], commitTime: 61).sequence == 61)
        try engine.close()

        // Another process's view: the same answers.
        let reopened = try SQLiteDocumentEngine(path: path)
        await expectResync(reopened, after: 0)
        #expect(try await reopened.document(at: "c/d1")?.body == Array("body 51".utf8))
        try reopened.close()
    }

    @Test("nothing is pruned past the index's flush point, nor within the minimum count")
    func neverPastTheFlushPointOrTheMinimum() async throws {
        // Standard tuning: 40 commits leave every index operation pending in the change log.
        let pending = try SQLiteDocumentEngine(
            path: try TemporaryFiles.newDatabasePath(),
            changeLogRetention: ChangeLogRetention(maximumAge: .zero, minimumCount: 1))
        try await fill(pending)
        #expect(try await pending.pruneChangeLog(now: 1_000, steps: 10) == 0)
        #expect(try await pending.changeLogStatus()?.horizon == 0)
        #expect(try await pending.changes(after: 0, limit: 100).count == 40)
        try pending.close()

        let minimum = try SQLiteDocumentEngine.smallLog(
            try TemporaryFiles.newDatabasePath(), ChangeLogRetention(maximumAge: .zero, minimumCount: 30))
        try await fill(minimum)
        _ = try await minimum.pruneChangeLog(now: 1_000, steps: 10)
        let horizon = try #require(try await minimum.changeLogStatus()).horizon
        #expect(horizon > 0 && horizon <= 10, "horizon \(horizon)")
        #expect(try await minimum.changes(after: horizon, limit: 100).count >= 30)
        try minimum.close()
    }

    @Test("changes younger than the maximum age are kept")
    func keepsYoungChanges() async throws {
        let hour: Int64 = 3_600_000_000
        let engine = try SQLiteDocumentEngine.smallLog(
            try TemporaryFiles.newDatabasePath(), ChangeLogRetention(maximumAge: .seconds(3_600), minimumCount: 1))
        let now: Int64 = 10 * hour
        for i in 1...20 {
            _ = try await engine.commit([put("c/d\(i)", i)], commitTime: i <= 10 ? now - 2 * hour : now - 1)
        }
        engine.waitForIndexMaintenance()
        _ = try await engine.pruneChangeLog(now: now, steps: 10)
        let horizon = try #require(try await engine.changeLogStatus()).horizon
        #expect(horizon > 0 && horizon <= 10, "horizon \(horizon)")
        #expect(try await engine.changes(after: horizon, limit: 100).count == Int(20 - horizon))
        try engine.close()
    }

    @Test("a retention out of range is refused")
    func badRetention() {
        let error = #expect(throws: DocumentsError.self) {
            _ = try SQLiteDocumentEngine(
                path: TestSupportPaths.unused, changeLogRetention: ChangeLogRetention(minimumCount: 0))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("minimum count") == true)
    }

    @Test("listeners that fell behind the horizon take a fresh snapshot")
    func listenersResync() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        var options = DocumentStore.Options()
        options.listenerPollInterval = .seconds(3_600)  // woken only by its own commits
        let watcher = DocumentStore(engine: try SQLiteDocumentEngine(path: path), options: options)
        let queries = Collected<QuerySnapshot>()
        let documents = Collected<DocumentSnapshot>()
        let tasks = [
            Task {
                for try await snapshot in try watcher.collection("events").snapshots() {
                    await queries.append(snapshot)
                }
            },
            Task {
                for try await snapshot in try watcher.document("events/e5").snapshots() {
                    await documents.append(snapshot)
                }
            },
        ]
        #expect(await queries.waitFor(1).first?.count == 0)
        #expect(await documents.waitFor(1).first?.exists == false)

        // Another process writes and prunes its log past everything the watcher has seen.
        let engine = try SQLiteDocumentEngine.smallLog(path, ChangeLogRetention(maximumAge: .zero, minimumCount: 1))
        let writer = DocumentStore(engine: engine)
        for i in 1...10 { try await writer.document("events/e\(i)").setData(["n": .value(.int(Int64(i)))]) }
        engine.waitForIndexMaintenance()
        _ = try await engine.pruneChangeLog(now: Int64.max / 2, steps: 10)
        #expect(try await engine.changeLogStatus()?.horizon ?? 0 > 1)

        // The watcher's own commit wakes its feed, which finds its position pruned.
        try await watcher.document("other/x").setData(["a": 1])
        let seen = await queries.waitFor(2)
        #expect(seen.count == 2)
        #expect(seen.last.map { Set($0.documents.map(\.documentID)) } == Set((1...10).map { "e\($0)" }))
        let document = await documents.waitFor(2)
        #expect(document.last?.get("n") == .int(5))
        for task in tasks { task.cancel() }
        await writer.close()
        await watcher.close()
    }
}

private enum TestSupportPaths {
    static let unused = "/nonexistent-directory/never-opened.sqlite"
}
