import Dispatch
import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import Documents

/// The SQLite engine's graceful shutdown: it finishes the index work under way, leaves at most
/// ``IndexTuning/leaveBehind`` pending operations for the next process, and loses nothing.
@Suite("SQLite engine shutdown")
struct SQLiteShutdownTests {
    typealias Runs = SQLiteIndexRunsTests

    /// Frequent background flushes (every 40 pending operations), pairs of runs merged, at most 10 operations left
    /// behind by a shutdown.
    static func engine(_ path: String, flushThreshold: Int = 40) throws -> SQLiteDocumentEngine {
        try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(
                flushThreshold: flushThreshold, directRunThreshold: 1_000, fanIn: 2, blockBytes: 16, leaveBehind: 10))
    }

    /// A one-document commit with an entry in each of two indexes (two pending operations).
    static func write(_ engine: SQLiteDocumentEngine, _ i: Int) async throws {
        let entries = [
            IndexEntry(index: "a", key: [UInt8(i % 256), UInt8(i / 256)]), IndexEntry(index: "b", key: [UInt8(i % 7)]),
        ]
        _ = try await engine.commit(
            [DocumentMutation(path: "c/d\(i)", kind: .put(body: [1], indexEntries: entries))], commitTime: Int64(i))
    }

    static func pending(_ engine: SQLiteDocumentEngine) async throws -> Int {
        try #require(try await engine.indexStatus()).pendingOperations
    }

    @Test func shutdownFlushesPendingOperationsPastTheLimitAndKeepsTheRest() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path)
        var written = 0
        for _ in 0..<57 {
            try await Self.write(engine, written)
            written += 1
        }
        engine.waitForIndexMaintenance()
        // Background flushes ran (at 40 operations) and left fewer than 40 pending; bring them past the limit of
        // 10, still under 40 (two operations per commit), so no background flush takes them.
        while try await Self.pending(engine) <= 10 {
            try await Self.write(engine, written)
            written += 1
        }
        let before = try #require(try await engine.indexStatus())
        #expect(before.runs >= 1)
        #expect(before.pendingOperations > 10 && before.pendingOperations < 40)
        await engine.shutdown()
        // Closed: later calls fail, a second shutdown returns at once.
        await #expect(throws: DocumentsError.self) { try await Self.write(engine, 999) }
        await engine.shutdown()

        let reopened = try Self.engine(path)
        #expect(try await Self.pending(reopened) <= 10)
        #expect(try await reopened.scan(IndexScan(index: "a")).count == written)
        #expect(try await reopened.scan(IndexScan(index: "b")).count == written)
        // At or under the limit, a shutdown writes no run: a process that wrote a little leaves it pending.
        let runs = try #require(try await reopened.indexStatus()).runs
        let pending = try await Self.pending(reopened)
        for _ in 0..<3 {
            try await Self.write(reopened, written)
            written += 1
        }
        #expect(pending + 6 <= 10)
        #expect(try await Self.pending(reopened) == pending + 6)
        await reopened.shutdown()
        let third = try Self.engine(path)
        let after = try #require(try await third.indexStatus())
        #expect(after.pendingOperations == pending + 6)
        #expect(after.runs == runs)
        #expect(try await third.scan(IndexScan(index: "a")).count == written)
        try third.close()
    }

    /// Many short "processes" (engines opened, written to and shut down in turn, as `suite docs batch` does) against
    /// the in-memory model: pending operations never pile up past the limit, and every reopen answers like the model.
    @Test func shortLivedWritersLeaveBoundedPendingAndTheSameResults() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let model = InMemoryDocumentEngine()
        var random = ModelTestRandom(seed: 9)
        var sequence: Int64 = 0
        for _ in 0..<12 {
            let engine = try Self.engine(path)
            for _ in 0..<8 {
                let commit = Runs.randomCommit(&random)
                sequence += 1
                _ = try await engine.commit(commit, commitTime: sequence)
                _ = try await model.commit(commit, commitTime: sequence)
            }
            await engine.shutdown()
            let reopened = try Self.engine(path)
            #expect(try await Self.pending(reopened) <= 10)
            try await Runs().expectSameScans([reopened], model: model, random: &random, count: 20)
            try reopened.close()
        }
    }

    /// A shutdown called while merges are due: merges merely due are left to the next process, but while more than
    /// `maximumRuns` runs are left the closing engine merges down to it; nothing is thrown away (unlike `close()`),
    /// every entry is there and no partial run is left.
    @Test func shutdownDuringMergesFinishesThemAndLosesNoEntry() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        var tuning = IndexTuning(flushThreshold: 3, directRunThreshold: 6, fanIn: 2, blockBytes: 16)
        tuning.maximumRuns = 3
        let engine = try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: tuning)
        // Hold the maintenance queue, so the merges the bulk commits call for are still to run when shutdown starts.
        let gate = DispatchSemaphore(value: 0)
        engine.maintenance.queue.async { gate.wait() }
        for commit in 0..<12 {
            let mutations = (0..<4).map { i in
                DocumentMutation(
                    path: "c/d\(commit)-\(i)",
                    kind: .put(body: [1], indexEntries: [IndexEntry(index: "a", key: [UInt8(commit), UInt8(i)])]))
            }
            _ = try await engine.commit(mutations, commitTime: 1)
        }
        // Two small commits stay pending (one operation each, under the flush threshold of 3).
        for i in 0..<2 {
            _ = try await engine.commit(
                [
                    DocumentMutation(
                        path: "c/p\(i)", kind: .put(body: [1], indexEntries: [IndexEntry(index: "a", key: [200])]))
                ],
                commitTime: 2)
        }
        #expect(engine.maintenance.status().running)
        let (runsBefore, _) = try await Self.runs(engine)
        #expect(SQLiteIndexRuns.plan(runsBefore, tuning: engine.tuning) != nil, "merges are due")
        let shutdown = Task { await engine.shutdown() }
        // The shutdown reaches the maintenance (from then on, merges are only those it must do) before the held work
        // starts.
        let deadline = ContinuousClock.now + .seconds(60)
        while !engine.maintenance.isFinishing, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(engine.maintenance.isFinishing, "the shutdown did not reach the index maintenance")
        gate.signal()
        await shutdown.value

        let reopened = try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: tuning)
        let (runs, building) = try await Self.runs(reopened)
        #expect(building == 0)
        #expect(runsBefore.count > tuning.maximumRuns)
        #expect(runs.count <= tuning.maximumRuns, "\(runs.map(\.tier))")
        // tiny's leave-behind is the standard 8,192: the two pending operations stay pending.
        #expect(try await reopened.indexStatus()?.pendingOperations == 2)
        let hits = try await reopened.scan(IndexScan(index: "a"))
        #expect(hits.count == 50)
        #expect(Set(hits.map(\.path)).count == 50)
        try reopened.close()
    }

    /// More shutdowns than the cooperative pool has threads, each waiting behind a held maintenance queue: were they
    /// waiting by blocking their thread (as `close()` does), this task could not run until a timer released the
    /// queues, a minute later. It runs at once and releases them itself.
    @Test func shutdownWaitsWithoutBlockingACooperativeThread() async throws {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        var engines: [SQLiteDocumentEngine] = []
        var gates: [DispatchSemaphore] = []
        for _ in 0..<count {
            let engine = try SQLiteDocumentEngine.tiny(try TemporaryFiles.newDatabasePath())
            let gate = DispatchSemaphore(value: 0)
            engine.maintenance.queue.async { gate.wait() }
            engines.append(engine)
            gates.append(gate)
        }
        let releasedByTimer = Released()
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { [gates] in
            releasedByTimer.value.withLock { $0 = true }
            for gate in gates { gate.signal() }
        }
        let shutdowns = engines.map { engine in Task { await engine.shutdown() } }
        // Every shutdown has started (and is waiting for its queue), and this task still runs.
        while !engines.allSatisfy({ $0.isShuttingDown.load(ordering: .sequentiallyConsistent) }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        _ = try await InMemoryDocumentEngine().commit([DocumentMutation(path: "c/d", kind: .delete)], commitTime: 1)
        #expect(releasedByTimer.value.withLock { !$0 }, "this task ran only after the timer released the queues")
        for gate in gates { gate.signal() }
        for shutdown in shutdowns { await shutdown.value }
        let closed = engines.filter { $0.isClosed.load(ordering: .sequentiallyConsistent) }.count
        #expect(closed == count)
    }

    final class Released: Sendable {
        let value = Mutex(false)
    }

    static func runs(_ engine: SQLiteDocumentEngine) async throws -> (runs: [RunInfo], building: Int) {
        try await engine.pool.read { db in
            (try RunInfo.all(db), try Int.fetchOne(db, sql: "SELECT count(*) FROM index_runs WHERE tier < 0") ?? -1)
        }
    }

    /// `close()` of a store shuts its engine down; the in-memory engine has no index status.
    @Test func closingAStoreShutsItsEngineDown() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        // No background flush: everything written stays pending until the close.
        let store = DocumentStore(engine: try Self.engine(path, flushThreshold: 1_000))
        let users = try store.collection("users")
        for i in 0..<30 {
            try await users.document("u\(i)").setData(["name": .string("user \(i)"), "points": .int(Int64(i))])
        }
        let status = try #require(try await store.indexStatus())
        #expect(status.pendingOperations > 10)
        await store.close()
        await store.close()
        await #expect(throws: DocumentsError.self) { try await store.engine.lastSequence() }

        let reopened = DocumentStore(engine: try Self.engine(path))
        #expect(try #require(try await reopened.indexStatus()).pendingOperations <= 10)
        let top = try await reopened.collection("users").query.whereField("points", isGreaterThanOrEqualTo: .int(25))
            .order(by: "points", descending: true).getDocuments()
        #expect(top.documents.map(\.documentID) == ["u29", "u28", "u27", "u26", "u25"])
        await reopened.close()

        let memory = DocumentStore(engine: InMemoryDocumentEngine())
        #expect(try await memory.indexStatus() == nil)
        await memory.close()
    }
}
