import DocumentEngineContract
import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Documents

extension DocumentEngineFactory {
    /// ``SQLiteDocumentEngine`` with its index shrunk (flush after 3 operations, merge pairs of runs, blocks of one or
    /// two entries), so the contract suite runs through flushes, merges and multi-block scans on every commit.
    static let sqliteTinyRuns = DocumentEngineFactory(name: "sqlite, tiny index runs") {
        let path = try TemporaryFiles.newDatabasePath()
        return DocumentEngineUnderTest(
            engine: try SQLiteDocumentEngine.tiny(path),
            reopen: { try SQLiteDocumentEngine.tiny(path) }
        )
    }
}

extension SQLiteDocumentEngine {
    static func tiny(_ path: String, flushThreshold: Int = 3, fanIn: Int = 2) throws -> SQLiteDocumentEngine {
        try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: flushThreshold, directRunThreshold: 6, fanIn: fanIn, blockBytes: 16))
    }
}

/// The SQLite engine's log-structured index (pending operations in change rows, sorted runs of blocks, merges) against
/// the in-memory engine as the model: random commits, then random scans, which must answer identically — also from a
/// second engine on the same file (another process's view) and after reopening.
@Suite("SQLite index runs")
struct SQLiteIndexRunsTests {
    typealias Generator = ModelTestRandom

    static let indexes = ["a", "b", "c"]

    static func randomKey(_ random: inout Generator) -> [UInt8] {
        (0..<Int(random.next() % 3)).map { _ in UInt8(random.next() % 4) }
    }

    static func randomCommit(_ random: inout Generator) -> [DocumentMutation] {
        (0..<Int(1 + random.next() % 4)).map { _ in
            let path = "c/d\(random.next() % 12)"
            if random.next() % 5 == 0 { return DocumentMutation(path: path, kind: .delete) }
            let entries = (0..<Int(random.next() % 5)).map { _ in
                IndexEntry(index: indexes[Int(random.next() % 3)], key: randomKey(&random))
            }
            return DocumentMutation(path: path, kind: .put(body: [1], indexEntries: entries))
        }
    }

    static func randomScan(_ random: inout Generator) -> IndexScan {
        func bound() -> IndexBound? {
            random.next() % 3 == 0 ? nil : IndexBound(key: randomKey(&random), inclusive: random.next() % 2 == 0)
        }
        return IndexScan(
            index: indexes[Int(random.next() % 3)], lower: bound(), upper: bound(), reverse: random.next() % 2 == 0,
            limit: random.next() % 3 == 0 ? Int(1 + random.next() % 5) : nil)
    }

    func expectSameScans(
        _ engines: [any DocumentEngine], model: InMemoryDocumentEngine, random: inout Generator, count: Int
    ) async throws {
        for _ in 0..<count {
            let scan = Self.randomScan(&random)
            let expected = try await model.scan(scan)
            for engine in engines {
                let actual = try await engine.scan(scan)
                #expect(actual == expected, "\(scan)")
                if actual != expected { return }
            }
        }
    }

    @Test(arguments: [(1, 2), (3, 2), (50, 2), (7, 4)])
    func randomCommitsScanLikeTheModel(flushThreshold: Int, fanIn: Int) async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path, flushThreshold: flushThreshold, fanIn: fanIn)
        let other = try SQLiteDocumentEngine.tiny(path, flushThreshold: flushThreshold, fanIn: fanIn)
        let model = InMemoryDocumentEngine()
        var random = Generator(seed: UInt64(flushThreshold * 10 + fanIn))
        for round in 0..<150 {
            let commit = Self.randomCommit(&random)
            // Alternate the writing engine, as two processes sharing the file would.
            let writer = round % 3 == 0 ? other : engine
            _ = try await writer.commit(commit, commitTime: Int64(round))
            _ = try await model.commit(commit, commitTime: Int64(round))
            try await expectSameScans([engine, other], model: model, random: &random, count: 4)
        }
        try engine.close()
        try other.close()
        let reopened = try SQLiteDocumentEngine.tiny(path, flushThreshold: flushThreshold, fanIn: fanIn)
        try await expectSameScans([reopened], model: model, random: &random, count: 100)
        try reopened.close()
    }

    @Test func bulkCommitsBecomeRunsAndMerge() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path, flushThreshold: 10)
        let model = InMemoryDocumentEngine()
        var random = Generator(seed: 99)
        for round in 0..<12 {
            // 40 documents with 1–2 entries each: over the threshold, so each commit writes a run directly.
            let commit = (0..<40).map { i in
                DocumentMutation(
                    path: "c/d\(round % 3)-\(i)",
                    kind: .put(
                        body: [1],
                        indexEntries: (0..<Int(1 + random.next() % 2)).map { _ in
                            IndexEntry(index: Self.indexes[Int(random.next() % 3)], key: Self.randomKey(&random))
                        }))
            }
            _ = try await engine.commit(commit, commitTime: Int64(round))
            _ = try await model.commit(commit, commitTime: Int64(round))
        }
        try await expectSameScans([engine], model: model, random: &random, count: 200)
        // Background merges kept the number of runs logarithmic, and nothing is pending after bulk commits.
        engine.waitForIndexMaintenance()
        try await expectSameScans([engine], model: model, random: &random, count: 100)
        let (runs, pending, building) = try await engine.pool.read { db in
            (
                try RunInfo.all(db),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM changes WHERE index_ops IS NOT NULL") ?? -1,
                try Int.fetchOne(db, sql: "SELECT count(*) FROM index_runs WHERE tier < 0") ?? -1
            )
        }
        // Settled tiers: older runs in strictly bigger tiers, so at most one run per tier (7 tiers of 10 · 2^k
        // entries hold the ~700 entries here).
        #expect(runs.count <= 8, "\(runs.map(\.tier))")
        for (older, newer) in zip(runs, runs.dropFirst()) { #expect(older.tier > newer.tier, "\(runs.map(\.tier))") }
        #expect(pending == 0)
        #expect(building == 0)
        try engine.close()
    }

    @Test func smallCommitsStayPendingUntilTheBackgroundFlushWritesThem() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path, flushThreshold: 10)
        func counts() async throws -> (runs: Int, pendingRows: Int) {
            engine.waitForIndexMaintenance()
            return try await engine.pool.read { db in
                (
                    try RunInfo.all(db).count,
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT count(*) FROM changes WHERE index_ops IS NOT NULL \
                            AND id > (SELECT flushed_through FROM index_state)
                            """) ?? -1
                )
            }
        }
        // One document with an entry in each of two indexes per commit.
        func write(_ i: Int) async throws {
            let entries = [IndexEntry(index: "a", key: [UInt8(i)]), IndexEntry(index: "b", key: [UInt8(i)])]
            _ = try await engine.commit(
                [DocumentMutation(path: "c/d\(i)", kind: .put(body: [1], indexEntries: entries))], commitTime: 1)
        }
        for i in 0..<3 { try await write(i) }
        #expect(try await counts() == (0, 3))
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.path) == ["c/d0", "c/d1", "c/d2"])
        // Two more commits (4 operations) pass the threshold of 10: the commit leaves its operations pending and
        // the background flush writes all of them as one run.
        for i in 3..<5 { try await write(i) }
        #expect(try await counts() == (1, 0))
        try await write(5)
        #expect(try await counts() == (1, 1))
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.path) == (0..<6).map { "c/d\($0)" })
        try engine.close()
    }

    @Test func aNewDocumentsOperationsAreItsOwnEntriesStoredOnce() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path, flushThreshold: 1000)
        func put(_ keys: [UInt8]) -> DocumentMutation {
            DocumentMutation(
                path: "c/d", kind: .put(body: [1], indexEntries: keys.map { IndexEntry(index: "a", key: [$0]) }))
        }
        func opsOfLastRow() async throws -> [UInt8]? {
            try await engine.pool.read { db in
                try Data.fetchOne(db, sql: "SELECT index_ops FROM changes ORDER BY id DESC LIMIT 1").map { [UInt8]($0) }
            }
        }
        _ = try await engine.commit([put([1, 2])], commitTime: 1)
        #expect(try await opsOfLastRow() == IndexOpCodec.allOwnEntriesPut)
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.key) == [[1], [2]])
        // An update lists its removals and puts.
        _ = try await engine.commit([put([2, 3])], commitTime: 2)
        #expect(try await opsOfLastRow().map { $0 != IndexOpCodec.allOwnEntriesPut } == true)
        #expect(try await engine.scan(IndexScan(index: "a")).map(\.key) == [[2], [3]])
        // Another process reads the same pending operations from the file.
        let second = try SQLiteDocumentEngine.tiny(path, flushThreshold: 1000)
        #expect(try await second.scan(IndexScan(index: "a")).map(\.key) == [[2], [3]])
        try second.close()
        try engine.close()
        // A marker row without its own entries is corrupt: an error, not a trap.
        #expect(throws: DocumentsError.self) {
            try IndexOpCodec.allOwnEntriesPut.withUnsafeBytes { marker in
                try IndexOpCodec.decodeChangeOps(marker, ownEntries: nil) { _, _, _ in }
            }
        }
    }

    @Test func waitingForBackgroundWorkLeavesSettledRuns() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path, flushThreshold: 3, fanIn: 2)
        // Bulk commits, each its own run: merges are due all along.
        for commit in 0..<12 {
            let mutations = (0..<4).map { i in
                DocumentMutation(
                    path: "c/d\(commit)-\(i)",
                    kind: .put(body: [1], indexEntries: [IndexEntry(index: "a", key: [UInt8(commit), UInt8(i)])]))
            }
            _ = try await engine.commit(mutations, commitTime: 1)
        }
        await engine.waitForBackgroundWork()
        let (runs, building) = try await engine.pool.read { db in
            (try RunInfo.all(db), try Int.fetchOne(db, sql: "SELECT count(*) FROM index_runs WHERE tier < 0") ?? -1)
        }
        #expect(SQLiteIndexRuns.plan(runs, tuning: engine.tuning) == nil, "\(runs.map(\.tier))")
        #expect(building == 0)
        #expect(try await engine.scan(IndexScan(index: "a")).count == 48)
        try engine.close()
        // After closing, it returns at once.
        await engine.waitForBackgroundWork()
    }

    /// Bulk commits prepared ahead (`prepareCommit`: own-entry lists encoded from one sorted buffer, puts sorted
    /// outside the transaction) against the in-memory model: new documents, updates, a path written twice in one
    /// commit, deletes, and names the id cache does not know yet.
    @Test func preparedBulkCommitsMatchTheModel() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path)
        let model = InMemoryDocumentEngine()
        func put(_ id: Int, _ round: Int) -> DocumentMutation {
            let entries = [
                IndexEntry(index: "a", key: [UInt8(id % 7), UInt8(round)]),
                IndexEntry(index: "b\(id % 3)", key: [UInt8(id & 0xFF), UInt8(round)]),
                IndexEntry(index: "a", key: [UInt8(id % 7), UInt8(round)]),  // a repeat: deduplicated
            ]
            return DocumentMutation(path: "c/d\(id)", kind: .put(body: [UInt8(round)], indexEntries: entries))
        }
        var rounds: [[DocumentMutation]] = []
        rounds.append((0..<100).map { put($0, 0) })  // new names: prepared without lists
        rounds.append((100..<200).map { put($0, 0) })  // known names, new documents: sorted ahead
        rounds.append((150..<250).map { put($0, 3) } + [put(160, 4), DocumentMutation(path: "c/d5", kind: .delete)])
        rounds.append((0..<80).map { put($0, 5) })  // updates only
        for (n, mutations) in rounds.enumerated() {
            let prepared = try await engine.prepareCommit(mutations)
            let ours = try await engine.commit(prepared, commitTime: Int64(n))
            let theirs = try await model.commit(mutations, commitTime: Int64(n))
            #expect(ours.documents.map { $0?.path } == theirs.documents.map { $0?.path })
            for index in ["a", "b0", "b1", "b2"] {
                let expected = try await model.scan(IndexScan(index: index))
                #expect(try await engine.scan(IndexScan(index: index)) == expected, "round \(n), index \(index)")
            }
        }
        engine.waitForIndexMaintenance()
        try engine.close()
        let reopened = try SQLiteDocumentEngine.tiny(path)
        for index in ["a", "b0", "b1", "b2"] {
            #expect(try await reopened.scan(IndexScan(index: index)) == (try await model.scan(IndexScan(index: index))))
        }
        // A later update of a document written by a prepared commit removes exactly its old entries.
        let update = put(170, 9)
        _ = try await reopened.commit([update], commitTime: 9)
        _ = try await model.commit([update], commitTime: 9)
        for index in ["a", "b0", "b1", "b2"] {
            #expect(try await reopened.scan(IndexScan(index: index)) == (try await model.scan(IndexScan(index: index))))
        }
        try reopened.close()
    }

    /// Bulk puts prepared from their flat entries (`prepareCommit(BulkPuts)`) against the in-memory model: index
    /// names created ahead, new documents, a path put twice in one commit, documents without entries, updates; and
    /// the model itself takes them through the protocol's default (`BulkPuts.mutations()`).
    @Test func bulkPutsMatchTheModel() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine.tiny(path)
        let model = InMemoryDocumentEngine()
        func puts(_ ids: [Int], round: Int) throws -> BulkPuts {
            var entries = IndexEntryBatch()
            for id in ids {
                if id % 11 != 0 {
                    entries.append(IndexEntry(index: "a", key: [UInt8(id % 7), UInt8(round)]))
                    entries.append(IndexEntry(index: "b\(id % 3)", key: [UInt8(id & 0xFF), UInt8(round)]))
                    entries.append(IndexEntry(index: "a", key: [UInt8(id % 7), UInt8(round)]))  // deduplicated
                }
                entries.endDocument()
            }
            return try BulkPuts(
                paths: ids.map { "c/d\($0)" }, bodies: ids.map { [UInt8($0 & 0xFF), UInt8(round)] }, entries: entries)
        }
        let rounds = [
            try puts(Array(0..<100), round: 0),  // every name new: created before the commit
            try puts(Array(100..<200), round: 1),
            try puts(Array(150..<250) + [160, 170], round: 2),  // updates, and two paths put twice
            try puts(Array(0..<80), round: 3),
        ]
        let indexes = ["a", "b0", "b1", "b2"]
        for (n, bulk) in rounds.enumerated() {
            let prepared = try await engine.prepareCommit(bulk)
            let ours = try await engine.commit(prepared, commitTime: Int64(n))
            let theirs = try await model.commit(try await model.prepareCommit(bulk), commitTime: Int64(n))
            #expect(ours.documents == theirs.documents)
            for index in indexes {
                let expected = try await model.scan(IndexScan(index: index))
                #expect(try await engine.scan(IndexScan(index: index)) == expected, "round \(n), index \(index)")
            }
        }
        #expect(try await engine.documents(at: ["c/d160"]) == (try await model.documents(at: ["c/d160"])))
        engine.waitForIndexMaintenance()
        try engine.close()
        let reopened = try SQLiteDocumentEngine.tiny(path)
        // A later update of a document written by bulk puts removes exactly its old entries.
        let update = try puts([170, 22], round: 9).mutations()
        _ = try await reopened.commit(update, commitTime: 9)
        _ = try await model.commit(update, commitTime: 9)
        for index in indexes {
            #expect(try await reopened.scan(IndexScan(index: index)) == (try await model.scan(IndexScan(index: index))))
        }
        try reopened.close()
    }

    /// The operation buffer's sort (prefixes taken after the bytes each index's keys share) against a plain sort:
    /// keys with long common starts, keys that are prefixes of others, zero bytes, repeated entries (the last added
    /// wins), several indexes with sparse ids, paths added in and out of order.
    @Test func operationBufferSortsLikeAPlainSort() {
        var random = Generator(seed: 7)
        for round in 0..<40 {
            var buffer = IndexOpBuffer()
            var reference: [(index: Int64, key: [UInt8], path: [UInt8], isPut: Bool, order: Int)] = []
            let indexes: [Int64] = [[1, 2, 3], [5, 70_000, Int64.max - 1], [Int64.min, 0, Int64.max]][round % 3]
            let common = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next() % 3) }
            let paths = (0..<30).map { n in Array("c/d\(round % 3 == 0 ? n : (n * 7) % 30)".utf8) }
            for (n, path) in paths.enumerated() {
                let stored = buffer.addPath(path)
                for _ in 0..<Int(random.next() % 6) {
                    let index = indexes[Int(random.next() % 3)]
                    let tail = (0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next() % 3) }
                    let key = random.next() % 5 == 0 ? Array(common.prefix(Int(random.next() % 8))) : common + tail
                    let isPut = random.next() % 2 == 0
                    buffer.add(index: index, key: key, path: stored, isPut: isPut)
                    reference.append((index, key, path, isPut, reference.count))
                    if n % 4 == 0 {  // the same entry again: the later operation wins
                        buffer.add(index: index, key: key, path: stored, isPut: !isPut)
                        reference.append((index, key, path, !isPut, reference.count))
                    }
                }
            }
            buffer.sortAndCollapse()
            reference.sort { a, b in
                if a.index != b.index { return a.index < b.index }
                if a.key != b.key { return a.key.lexicographicallyPrecedes(b.key) }
                if a.path != b.path { return a.path.lexicographicallyPrecedes(b.path) }
                return a.order < b.order
            }
            var expected: [(Int64, [UInt8], [UInt8], Bool)] = []
            for entry in reference {
                if let last = expected.last, last.0 == entry.index, last.1 == entry.key, last.2 == entry.path {
                    expected[expected.count - 1].3 = entry.isPut
                } else {
                    expected.append((entry.index, entry.key, entry.path, entry.isPut))
                }
            }
            var sorted: [(Int64, [UInt8], [UInt8], Bool)] = []
            buffer.forEach { index, key, path, isPut in sorted.append((index, Array(key), Array(path), isPut)) }
            #expect(sorted.count == expected.count, "round \(round)")
            for (a, b) in zip(sorted, expected) {
                #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3, "round \(round)")
            }
        }
    }

    @Test func corruptBlocksAndOperationListsThrowInsteadOfTrapping() throws {
        var random = Generator(seed: 42)
        var failures = 0
        for round in 0..<3000 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next() % 7) }
            do {
                let block = try IndexBlock(index: 1, data: bytes)
                // Whatever decoded lies inside the rebuilt bytes.
                for entry in block.entries {
                    #expect(Int(entry.keyStart) + Int(entry.keyCount) <= block.bytes.count)
                    #expect(Int(entry.pathStart) + Int(entry.pathCount) <= block.bytes.count)
                }
            } catch let error as DocumentsError {
                #expect(error.code == .corrupted)
                failures += 1
            }
            try bytes.withUnsafeBytes { buffer in
                do {
                    try IndexOpCodec.decodeChangeOps(buffer, ownEntries: nil) { _, key, _ in
                        #expect(key.count <= buffer.count)
                    }
                } catch let error as DocumentsError {
                    #expect(error.code == .corrupted, "round \(round)")
                }
            }
        }
        #expect(failures > 100)
    }
}
