import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Documents

/// The SQLite engine's log-structured index held to ``PlainTableIndex`` (one ordinary SQLite table of `(index, key,
/// path)` rows): the same random writes, explicit flushes and merges, then every scan compared — once with the
/// engine's commits writing (pending operations in change rows), once with both indexes driven only through the
/// ``SecondaryIndex`` protocol.
@Suite("Secondary index: differential against a plain table")
struct SecondaryIndexDifferentialTests {
    typealias Generator = ModelTestRandom

    /// The operations a commit makes on the index, given each path's entries before it (`own`, updated).
    static func operations(_ mutations: [DocumentMutation], own: inout [String: Set<IndexEntry>]) -> [IndexOperation] {
        var operations: [IndexOperation] = []
        for mutation in mutations {
            let old = own[mutation.path] ?? []
            var new = Set<IndexEntry>()
            if case .put(_, let entries) = mutation.kind { new = Set(entries) }
            for entry in old.subtracting(new) {
                operations.append(IndexOperation(index: entry.index, key: entry.key, path: mutation.path, isPut: false))
            }
            for entry in new.subtracting(old) {
                operations.append(IndexOperation(index: entry.index, key: entry.key, path: mutation.path, isPut: true))
            }
            if case .put = mutation.kind { own[mutation.path] = new } else { own[mutation.path] = nil }
        }
        return operations
    }

    @Test(arguments: [(UInt64(1), 3), (2, 20), (3, 1_000_000), (4, 7)])
    func randomWritesFlushesAndMergesScanLikeThePlainTable(seed: UInt64, flushThreshold: Int) async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let engine = try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: flushThreshold, directRunThreshold: 12, fanIn: 2, blockBytes: 24))
        let plain: any SecondaryIndex = try PlainTableIndex()
        var own: [String: Set<IndexEntry>] = [:]
        var random = Generator(seed: seed)
        var scans = 0
        for step in 0..<400 {
            switch random.next() % 10 {
            case 0:
                // An explicit flush of everything pending.
                try await engine.index.flush()
                try await plain.flush()
            case 1:
                // The merges due, in the background, then in the writer.
                try await engine.index.merge()
                try await plain.merge()
            case 2, 3, 4:
                for _ in 0..<5 {
                    let scan = SQLiteIndexRunsTests.randomScan(&random)
                    let expected = try await plain.scan(scan)
                    let actual = try await engine.scan(scan)
                    #expect(actual == expected, "step \(step): \(scan)")
                    if actual != expected { return }
                    scans += 1
                }
            default:
                let mutations = SQLiteIndexRunsTests.randomCommit(&random)
                _ = try await engine.commit(mutations, commitTime: 0)
                try await plain.apply(Self.operations(mutations, own: &own))
            }
        }
        #expect(scans > 100)
        for index in SQLiteIndexRunsTests.indexes {
            #expect(try await engine.scan(IndexScan(index: index)) == (try await plain.scan(IndexScan(index: index))))
        }
        #expect(try await engine.verifyIndexes().isConsistent)
    }

    @Test(arguments: [(UInt64(11), 3), (12, 1_000_000), (13, 7)])
    func bothIndexesDrivenThroughTheSeamScanAlike(seed: UInt64, flushThreshold: Int) async throws {
        let engine = try SQLiteDocumentEngine(
            path: try TemporaryFiles.newDatabasePath(), durability: .normal,
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: flushThreshold, directRunThreshold: 12, fanIn: 2, blockBytes: 24))
        let indexes: [any SecondaryIndex] = [engine.index, try PlainTableIndex()]
        var own: [String: Set<IndexEntry>] = [:]
        var random = Generator(seed: seed)
        var scans = 0
        var applied = 0
        for step in 0..<300 {
            switch random.next() % 10 {
            case 0: for index in indexes { try await index.flush() }
            case 1: for index in indexes { try await index.merge() }
            case 2, 3, 4:
                for _ in 0..<5 {
                    let scan = SQLiteIndexRunsTests.randomScan(&random)
                    let actual = try await indexes[0].scan(scan)
                    let expected = try await indexes[1].scan(scan)
                    #expect(actual == expected, "step \(step): \(scan)")
                    if actual != expected { return }
                    scans += 1
                }
            default:
                var operations = Self.operations(SQLiteIndexRunsTests.randomCommit(&random), own: &own)
                // Now and then an operation repeated with the other kind: the last one on an entry wins.
                if let last = operations.last, random.next() % 4 == 0 {
                    operations.append(
                        IndexOperation(index: last.index, key: last.key, path: last.path, isPut: !last.isPut))
                    if last.isPut {
                        own[last.path]?.remove(IndexEntry(index: last.index, key: last.key))
                    } else {
                        own[last.path, default: []].insert(IndexEntry(index: last.index, key: last.key))
                    }
                }
                for index in indexes { try await index.apply(operations) }
                applied += operations.count
            }
        }
        #expect(scans > 50)
        #expect(applied > 100)
        for name in SQLiteIndexRunsTests.indexes {
            #expect(
                try await indexes[0].scan(IndexScan(index: name)) == (try await indexes[1].scan(IndexScan(index: name)))
            )
        }
    }
}
