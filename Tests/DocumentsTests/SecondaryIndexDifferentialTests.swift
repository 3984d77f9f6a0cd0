import Foundation
import GRDB
import Logging
import Testing

@testable import Documents

/// The SQLite engine's log-structured index held to ``PlainTableIndex`` (one ordinary SQLite table of `(index, key,
/// path)` rows): the same random writes, explicit flushes and merges, then every scan compared.
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
                try await engine.write(inline: false) {
                    [writerPending = engine.writerPending, tuning = engine.tuning] db in
                    try SQLiteDocumentEngine.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
                }
                try await plain.flush()
            case 1:
                // The merges due, in the background, then in the writer.
                await engine.waitForBackgroundWork()
                try await engine.write(inline: false) { [tuning = engine.tuning] db in
                    try SQLiteIndexRuns.compact(db, tuning: tuning)
                }
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
}
