import DocumentEngineContract
import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import Documents

/// `verifyIndexes` and `rebuildIndexes` (the safety net), the bounded-memory backfill and drop, and the pending
/// operations' scan limit.
@Suite("Index verification and rebuild")
struct IndexVerificationTests {
    typealias Generator = ModelTestRandom

    static func engine(
        _ path: String, flushThreshold: Int = 3, directRunThreshold: Int = 6, backfillChunk: Int = 131_072,
        verificationChunk: Int = 262_144
    ) throws -> SQLiteDocumentEngine {
        try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(
                flushThreshold: flushThreshold, directRunThreshold: directRunThreshold, fanIn: 2, blockBytes: 16,
                backfillChunk: backfillChunk, verificationChunk: verificationChunk))
    }

    /// Random commits on `engine` (and on `model`, when given); returns nothing, the engines hold the result.
    static func randomCommits(
        _ engines: [any DocumentEngine], count: Int, seed: UInt64
    ) async throws {
        var random = Generator(seed: seed)
        for _ in 0..<count {
            let mutations = SQLiteIndexRunsTests.randomCommit(&random)
            for engine in engines { _ = try await engine.commit(mutations, commitTime: 0) }
        }
    }

    static let builtIn: [DocumentEngineFactory] = [.inMemory, .sqlite, .sqliteTinyRuns]

    @Test(arguments: builtIn)
    func aHealthyStoreVerifiesWithoutDifferences(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        try await Self.randomCommits([engine], count: 150, seed: 7)
        let report = try await engine.verifyIndexes()
        #expect(report.isConsistent, "\(report.differences)")
        #expect(report.entries > 0)
        #expect(report.indexes == 3)
        // Rebuilding a healthy index changes no scan.
        let before = try await engine.scan(IndexScan(index: "a"))
        let rebuilt = try await engine.rebuildIndexes()
        #expect(rebuilt.entries == report.entries)
        #expect(try await engine.scan(IndexScan(index: "a")) == before)
        #expect(try await engine.verifyIndexes().isConsistent)
    }

    /// Damage the index behind the engine's back: a lost run (entries missing) and a document whose own entries were
    /// cleared (entries unexpected). Verification finds both kinds — the same with one partition or many — and a
    /// rebuild makes scans match the model again.
    @Test(arguments: [1, 4, 1_000_000])
    func findsMissingAndUnexpectedEntriesAndRebuildRepairs(verificationChunk: Int) async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, verificationChunk: verificationChunk)
        let model = InMemoryDocumentEngine()
        try await Self.randomCommits([engine, model], count: 120, seed: 11)
        await engine.waitForBackgroundWork()
        #expect(try await engine.verifyIndexes().isConsistent)

        // One document's own entries forgotten: its entries in the index are unexpected.
        let forgotten = try await engine.pool.write { db -> String? in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT d.parent, d.doc_id, d.change_id FROM documents d JOIN changes c ON c.id = d.change_id \
                    WHERE c.index_keys IS NOT NULL AND length(c.index_keys) > 1 ORDER BY d.parent, d.doc_id LIMIT 1
                    """)
            guard let row else { return nil }
            try db.execute(sql: "UPDATE changes SET index_keys = NULL WHERE id = ?", arguments: [row[2] as Int64])
            return (row[0] as String) + "/" + (row[1] as String)
        }
        #expect(forgotten != nil)
        let unexpected = try await engine.verifyIndexes(.all, maximumReported: 10_000, progress: nil)
        #expect(unexpected.differenceCount > 0)
        #expect(unexpected.differences.allSatisfy { $0.kind == .unexpected && $0.path == forgotten })
        // And a run's blocks lost: its entries are missing.
        try await engine.pool.write { db in
            let run = try Int64.fetchOne(db, sql: "SELECT id FROM index_runs WHERE tier >= 0 ORDER BY entries DESC")
            try db.execute(sql: "DELETE FROM index_blocks WHERE run = ?", arguments: [run])
        }
        let report = try await engine.verifyIndexes(.all, maximumReported: 10_000, progress: nil)
        #expect(!report.isConsistent)
        #expect(report.differences.contains { $0.kind == .missing })
        #expect(report.differenceCount == report.differences.count)
        // Each difference is real: a missing entry is not scanned, an unexpected one is.
        for difference in report.differences {
            let hits = try await engine.scan(
                IndexScan(
                    index: difference.index, lower: IndexBound(key: difference.key, inclusive: true),
                    upper: IndexBound(key: difference.key, inclusive: true)))
            #expect(hits.contains { $0.path == difference.path } == (difference.kind == .unexpected))
        }
        let capped = try await engine.verifyIndexes(.all, maximumReported: 1, progress: nil)
        #expect(capped.differences.count == 1)
        #expect(capped.differenceCount == report.differenceCount)

        _ = try await engine.rebuildIndexes()
        #expect(try await engine.verifyIndexes().isConsistent)
        // The forgotten document's entries are gone for good; every other entry is back.
        for index in SQLiteIndexRunsTests.indexes {
            let scanned = Set(try await engine.scan(IndexScan(index: index)))
            let expected = Set(try await model.scan(IndexScan(index: index)))
            #expect(scanned == Set(expected.filter { $0.path != forgotten }))
        }
    }

    @Test func rebuildingOneIndexLeavesTheOthersAlone() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, flushThreshold: 1_000)
        try await Self.randomCommits([engine], count: 80, seed: 3)
        // Everything flushed into runs, then every block lost: every index misses all its entries.
        try await engine.write(inline: false) { [writerPending = engine.writerPending, tuning = engine.tuning] db in
            try SQLiteDocumentEngine.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
            try db.execute(sql: "DELETE FROM index_blocks")
        }
        let broken = try await engine.verifyIndexes(.all, maximumReported: 100_000, progress: nil)
        #expect(Set(broken.differences.map(\.index)) == ["a", "b", "c"])

        let report = try await engine.rebuildIndexes(.named(["b"]), progress: nil)
        #expect(report.indexes == 1)
        let after = try await engine.verifyIndexes(.all, maximumReported: 100_000, progress: nil)
        #expect(Set(after.differences.map(\.index)) == ["a", "c"])
        #expect(try await engine.verifyIndexes(.named(["b"])).isConsistent)
    }

    @Test func inMemoryVerificationFindsADamagedIndex() async throws {
        let engine = InMemoryDocumentEngine()
        try await Self.randomCommits([engine], count: 60, seed: 5)
        let entries = try await engine.scan(IndexScan(index: "a")).count
        engine.state.withLock { $0.indexes["a"] = nil }
        let report = try await engine.verifyIndexes(.all, maximumReported: 10_000, progress: nil)
        #expect(report.differenceCount == entries)
        #expect(report.differences.allSatisfy { $0.kind == .missing && $0.index == "a" })
        _ = try await engine.rebuildIndexes(.named(["a"]), progress: nil)
        #expect(try await engine.scan(IndexScan(index: "a")).count == entries)
    }

    /// A backfill larger than the chunk size is written as several runs (bounded memory) and scans like one.
    @Test func aBackfillIsWrittenInChunksWithTheSameResult() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, flushThreshold: 1_000)
        let model = InMemoryDocumentEngine()
        var mutations: [DocumentMutation] = []
        for i in 0..<40 {
            mutations.append(
                DocumentMutation(
                    path: "c/d\(i)", kind: .put(body: [1], indexEntries: [IndexEntry(index: "a", key: [1])]))
            )
        }
        _ = try await engine.commit(mutations, commitTime: 0)
        _ = try await model.commit(mutations, commitTime: 0)
        var additions: [IndexAddition] = []
        for i in 0..<40 {
            additions.append(
                IndexAddition(
                    path: "c/d\(i)",
                    entries: [
                        IndexEntry(index: "x", key: [UInt8(i % 7)]),
                        IndexEntry(index: "y", key: [UInt8(i % 3), UInt8(i)]),
                    ]))
        }
        additions.append(IndexAddition(path: "c/missing", entries: [IndexEntry(index: "x", key: [0])]))
        let chunks = try await engine.addIndexEntries(additions, chunkOperations: 9)
        #expect(chunks >= 80 / 9)
        try await model.addIndexEntries(additions)
        for scan in [
            IndexScan(index: "x"), IndexScan(index: "y", reverse: true), IndexScan(index: "a"),
            IndexScan(index: "x", lower: IndexBound(key: [3], inclusive: false), limit: 5),
        ] {
            #expect(try await engine.scan(scan) == (try await model.scan(scan)), "\(scan)")
        }
        #expect(try await engine.verifyIndexes().isConsistent)
        // Dropping streams the index: every document loses the entries, the others stay.
        try await engine.removeIndex("x")
        #expect(try await engine.scan(IndexScan(index: "x")).isEmpty)
        #expect(try await engine.scan(IndexScan(index: "y")).count == 40)
        #expect(try await engine.verifyIndexes().isConsistent)
    }

    /// The pending operations a limited scan takes stop at the limit (plus the unsorted tail), not at the bounds.
    @Test func aLimitedScanSelectsFewPendingOperations() {
        var ops = PendingIndexCache.Ops(loadedThrough: 0)
        for i in 0..<10_000 {
            ops.sorted.append(
                PendingIndexCache.Op(
                    key: [UInt8(i >> 8), UInt8(i & 0xFF)], path: Array("c/d\(i)".utf8), changeID: Int64(i + 1),
                    isPut: true))
        }
        ops.recent = [PendingIndexCache.Op(key: [0, 2], path: Array("c/d2".utf8), changeID: 20_000, isPut: false)]
        let forward = PendingIndexCache.select(
            ops, lower: .inclusive([0]), upper: .none, snapshotMax: .max, limit: 5, reverse: false)
        #expect(forward.count <= 7)
        #expect(forward.filter(\.isPut).count >= 5)
        let backward = PendingIndexCache.select(
            ops, lower: .none, upper: .exclusive([30]), snapshotMax: .max, limit: 5, reverse: true)
        #expect(backward.count <= 7)
        #expect(backward.last?.key == [29, 255])
        let all = PendingIndexCache.select(ops, lower: .none, upper: .none, snapshotMax: .max)
        #expect(all.count == 10_000)
    }

    /// Scans running at once in one process, each reading the change log outside the pending copy's lock and adding
    /// what it read: every one answers like the model.
    @Test func concurrentScansOverPendingOperationsMatchTheModel() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, flushThreshold: 1_000_000, directRunThreshold: 1_000_000)
        let model = InMemoryDocumentEngine()
        var random = Generator(seed: 4242)
        for _ in 0..<8 {
            for _ in 0..<40 {
                let mutations = SQLiteIndexRunsTests.randomCommit(&random)
                _ = try await engine.commit(mutations, commitTime: 0)
                _ = try await model.commit(mutations, commitTime: 0)
            }
            let scans = (0..<32).map { _ in SQLiteIndexRunsTests.randomScan(&random) }
            var expected: [[IndexHit]] = []
            for scan in scans { expected.append(try await model.scan(scan)) }
            let results = try await withThrowingTaskGroup(of: (Int, [IndexHit]).self) { group in
                for (i, scan) in scans.enumerated() { group.addTask { (i, try await engine.scan(scan)) } }
                var results = [[IndexHit]](repeating: [], count: scans.count)
                for try await (i, hits) in group { results[i] = hits }
                return results
            }
            for i in scans.indices { #expect(results[i] == expected[i], "\(scans[i])") }
        }
    }

    /// Many pending operations (nothing flushed): random limited, bounded and reversed scans answer like the model.
    @Test func limitedScansOverPendingOperationsMatchTheModel() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try Self.engine(path, flushThreshold: 1_000_000, directRunThreshold: 1_000_000)
        let other = try Self.engine(path, flushThreshold: 1_000_000, directRunThreshold: 1_000_000)
        let model = InMemoryDocumentEngine()
        var random = Generator(seed: 99)
        for round in 0..<6 {
            for _ in 0..<150 {
                let mutations = SQLiteIndexRunsTests.randomCommit(&random)
                _ = try await engine.commit(mutations, commitTime: 0)
                _ = try await model.commit(mutations, commitTime: 0)
            }
            for _ in 0..<60 {
                let scan = SQLiteIndexRunsTests.randomScan(&random)
                let expected = try await model.scan(scan)
                #expect(try await engine.scan(scan) == expected, "round \(round): \(scan)")
                #expect(try await other.scan(scan) == expected, "round \(round), other: \(scan)")
            }
        }
        #expect(try await engine.indexStatus()?.runs == 0)
    }
}
