import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import Documents

/// Who may delete or place a partial index run (owner token and lease, not process ids), what an engine does once a
/// newer Suite migrated its file, which engine may commit a prepared commit, and how bulk commits wait for merges.
@Suite("SQLite run ownership and maintenance guards")
struct SQLiteRunOwnershipTests {
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func engine(_ path: String, maximumRuns: Int = 24, mergeWait: Duration = .milliseconds(500)) throws
        -> SQLiteDocumentEngine
    {
        try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: quiet,
            tuning: IndexTuning(
                flushThreshold: 3, directRunThreshold: 6, fanIn: 2, maximumRuns: maximumRuns,
                maximumMergeWait: mergeWait, blockBytes: 16))
    }

    static func put(_ path: String, _ keys: [[UInt8]], index: String = "a") -> DocumentMutation {
        DocumentMutation(
            path: path, kind: .put(body: [1], indexEntries: keys.map { IndexEntry(index: index, key: $0) }))
    }

    static var unshareWorks: Bool {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--pid", "--fork", "--mount-proc", "/bin/true"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    // MARK: Ownership

    /// The issue's reproduction: a writer flushes and merges in the background (partial runs live across many
    /// transactions) while other processes, each in a pid namespace of its own where the writer's pid does not exist,
    /// open the file again and again. Owned by pid, the writer's partial runs were deleted and its entries lost.
    @Test(.enabled(if: unshareWorks, "needs unshare --pid (root)"))
    func opensFromAnotherPidNamespaceKeepEveryEntry() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let binary = TestSupport.binDirectory.appendingPathComponent("documents-crash-writer").path
        let writer = TestProcess()
        writer.executableURL = URL(fileURLWithPath: binary)
        writer.arguments = [path, "--index-heavy", "--commits", "200"]
        let acks = path + ".acks"
        #expect(FileManager.default.createFile(atPath: acks, contents: nil))
        writer.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: acks))
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        // Opens start once the writer has created the file (two processes creating one race on its migrations).
        while writer.isRunning, (try? FileManager.default.attributesOfItem(atPath: acks)[.size] as? Int) ?? 0 == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        var opens = 0
        while writer.isRunning || opens < 40 {
            let opener = TestProcess()
            opener.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            opener.arguments = ["--pid", "--fork", "--mount-proc", binary, path, "--open"]
            let errors = Pipe()
            opener.standardError = errors
            try opener.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            opener.waitUntilExit()
            #expect(opener.terminationStatus == 0, "\(message)")
            opens += 1
            if opens >= 400 { break }
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(opens >= 40)

        let engine = try SQLiteDocumentEngine(path: path, logger: Self.quiet)
        let changes = try await engine.changes(after: 0, limit: 1_000_000)
        #expect(changes.count == 5 * 8_200 + 195)
        #expect(try await engine.scan(IndexScan(index: "n")).count == changes.count)
        #expect(try await engine.scan(IndexScan(index: "m")).count == 195 * 4_096)
        try engine.close()
    }

    /// A partial run is deleted at open only once its lease has expired; runs of engines before leases (no lease)
    /// count as expired here (the migration gives them one first).
    @Test func openingRemovesOnlyPartialRunsWhoseLeaseExpired() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        var engine = try Self.engine(path)
        _ = try await engine.commit([Self.put("c/d", [[1]])], commitTime: 1)
        let now = SQLiteIndexMaintenance.nowMilliseconds()
        try await engine.pool.write { db in
            for (owner, lease) in [(1, now - 1), (2, now + 60_000), (3, nil)] as [(Int64, Int64?)] {
                try db.execute(
                    sql: "INSERT INTO index_runs (seq, tier, entries, owner, lease_until) VALUES (1, -1, 0, ?, ?)",
                    arguments: [owner, lease])
                try db.execute(
                    sql:
                        "INSERT INTO index_blocks (run, idx, last_key, last_path, data) VALUES (?, 1, x'01', x'02', x'03')",
                    arguments: [db.lastInsertedRowID])
            }
        }
        try engine.close()
        engine = try Self.engine(path)
        let (owners, orphanBlocks) = try await engine.pool.read { db in
            (
                try Int64.fetchAll(db, sql: "SELECT owner FROM index_runs WHERE tier < 0"),
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM index_blocks WHERE run NOT IN (SELECT id FROM index_runs)") ?? -1
            )
        }
        #expect(owners == [2])
        #expect(orphanBlocks == 0)
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.path) == ["c/d"])
        try engine.close()
    }

    /// Placing a run and renewing its lease each change exactly one row, or throw and change nothing: a run deleted
    /// under its writer (or owned by another engine) is never placed.
    @Test func aRunDeletedUnderItsWriterIsNotPlaced() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path)
        let owner = engine.maintenance.owner
        let run = try await engine.pool.write { db in try SQLiteIndexMaintenance.reserveRun(seq: 1, owner: owner, db) }
        await #expect(throws: DocumentsError.self) {
            try await engine.pool.write { db in
                try SQLiteIndexMaintenance.place(run, owner: owner &+ 1, entries: 1, tuning: engine.tuning, db)
            }
        }
        try await engine.pool.write { db in try SQLiteIndexMaintenance.renewLease(run, owner: owner, db) }
        // Another process deletes it (say, its clock ran past the lease).
        try await engine.pool.write { db in try db.execute(sql: "DELETE FROM index_runs WHERE id = ?", arguments: [run])
        }
        await #expect(throws: DocumentsError.self) {
            try await engine.pool.write { db in try SQLiteIndexMaintenance.renewLease(run, owner: owner, db) }
        }
        await #expect(throws: DocumentsError.self) {
            try await engine.pool.write { db in
                try SQLiteIndexMaintenance.place(run, owner: owner, entries: 1, tuning: engine.tuning, db)
            }
        }
        let rows = try await engine.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM index_runs") }
        #expect(rows == 0)
        try engine.close()
    }

    // MARK: Format version

    /// A newer Suite migrates the file while this engine has it open: the engine's next flush or merge sees it in its
    /// transaction, writes nothing, stops maintaining and says why; a bulk commit that would flush fails.
    @Test func anEngineStopsMaintainingOnceANewerSuiteMigratedTheFile() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path)
        _ = try await engine.commit([Self.put("c/d0", [[0]])], commitTime: 1)
        engine.waitForIndexMaintenance()
        let before = try await engine.indexStatus()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        try queue.close()

        // Pending operations past the flush threshold: the background flush would write them as a run.
        for i in 1...4 { _ = try await engine.commit([Self.put("c/d\(i)", [[UInt8(i)]])], commitTime: 1) }
        engine.waitForIndexMaintenance()
        let status = try await engine.indexStatus()
        #expect(
            status?.lastMaintenanceError?.contains("newer version of Suite") == true, "\(String(describing: status))")
        #expect(status?.runs == before?.runs)
        #expect(status?.pendingOperations == 5)
        // A commit bringing enough operations for a run of its own flushes in its transaction: refused.
        await #expect(throws: DocumentsError.self) {
            _ = try await engine.commit([Self.put("c/big", (0..<8).map { [9, UInt8($0)] })], commitTime: 1)
        }
        // Later kicks start nothing.
        await engine.waitForBackgroundWork()
        #expect(try await engine.indexStatus()?.runs == before?.runs)
        try engine.close()
    }

    // MARK: Prepared commits

    /// A commit prepared by one engine carries its identity; another engine (of the same type on another file, or
    /// another type) refuses it instead of writing the wrong index ids, or none.
    @Test func aPreparedCommitIsRefusedByAnotherEngine() async throws {
        let first = try Self.engine(try TemporaryFiles.newDatabasePath())
        let second = try Self.engine(try TemporaryFiles.newDatabasePath())
        // Index names the two files know under different ids.
        _ = try await second.commit([Self.put("c/x", [[1]], index: "other")], commitTime: 1)
        let puts = (0..<100).map { Self.put("c/d\($0)", [[UInt8($0)]]) }
        let prepared = try await first.prepareCommit(puts)
        for engine in [second, InMemoryDocumentEngine()] as [any DocumentEngine] {
            do {
                _ = try await engine.commit(prepared, commitTime: 1)
                Issue.record("\(type(of: engine)) committed another engine's prepared commit")
            } catch let error as DocumentsError {
                #expect(error.code == .wrongEngine, "\(error)")
            }
        }
        #expect(try await second.scan(IndexScan(index: "a")).isEmpty)
        _ = try await first.commit(prepared, commitTime: 1)
        #expect(try await first.scan(IndexScan(index: "a")).count == 100)
        try first.close()
        try second.close()
    }

    // MARK: Backpressure

    /// Past `maximumRuns`, a bulk commit waits for the background merges (here held) for at most `maximumMergeWait`
    /// instead of merging in its own transaction; once the merger runs, the runs settle.
    @Test func bulkCommitsPastMaximumRunsWaitForTheMergerInsteadOfMergingInline() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, maximumRuns: 3, mergeWait: .milliseconds(200))
        let gate = DispatchSemaphore(value: 0)
        engine.maintenance.queue.async { gate.wait() }
        var waited = 0
        for commit in 0..<8 {
            let puts = (0..<70).map { Self.put("c/d\(commit)-\($0)", [[UInt8(commit), UInt8($0)]]) }
            let runsBefore = try await engine.pool.read { db in try RunInfo.count(db) }
            let started = ContinuousClock.now
            _ = try await engine.commit(puts, commitTime: 1)
            let took = ContinuousClock.now - started
            if runsBefore > 3 {
                #expect(took >= .milliseconds(200))
                waited += 1
            }
        }
        let held = try await engine.pool.read { db in try RunInfo.count(db) }
        gate.signal()
        #expect(waited >= 4)
        #expect(held == 8, "commits merged runs themselves")
        await engine.waitForBackgroundWork()
        #expect(try await engine.pool.read { db in try RunInfo.count(db) } <= 3)
        #expect(try await engine.scan(IndexScan(index: "a")).count == 8 * 70)
        try engine.close()
    }

    /// The importer reports its slowest chunk commit (`suite docs import` prints it).
    @Test func theImporterReportsItsSlowestCommit() async throws {
        let store = try await StoreTesting.store(.inMemory)
        let importer = store.importer(into: try store.collection("orders"), chunkSize: 2)
        #expect(importer.slowestCommit == .zero)
        for i in 0..<5 { try await importer.add(id: "o\(i)", data: ["n": .int(Int64(i))]) }
        #expect(try await importer.finish() == 5)
        #expect(importer.slowestCommit > .zero)
    }
}
