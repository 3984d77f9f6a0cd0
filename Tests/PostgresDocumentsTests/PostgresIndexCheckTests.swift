@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import SuitePluginKit
import Testing

/// `verifyIndexes` and `rebuildIndexes` of the `postgres` engine through the plugin ABI, against an `entries` table
/// damaged with SQL behind the engine's back.
@Suite("PostgresDocuments index verify and rebuild")
struct PostgresIndexCheckTests {
    /// 30 documents, each with an entry in index `a` (key i % 5) and one in `b` (key i).
    private func populated() async throws -> (PluginDocumentEngine, String) {
        let options = try await PostgresFixture.options()
        let engine = try PostgresFixture.engine(options)
        let mutations = (0..<30).map { i in
            DocumentMutation(
                path: "c/d\(i)",
                kind: .put(
                    body: [UInt8(i)],
                    indexEntries: [
                        IndexEntry(index: "a", key: [UInt8(i % 5)]), IndexEntry(index: "b", key: [UInt8(i)]),
                    ]
                ))
        }
        _ = try await engine.commit(mutations, commitTime: 1)
        return (engine, options["schema"]?.stringValue ?? "")
    }

    @Test("a healthy store verifies consistent, for every index, by name or by predicate")
    func healthy() async throws {
        let (engine, _) = try await populated()
        let all = try await engine.verifyIndexes()
        #expect(all == IndexVerification(indexes: 2, entries: 60, differenceCount: 0, differences: []))
        #expect(try await engine.verifyIndexes(.named(["b"])).entries == 30)
        #expect(try await engine.verifyIndexes(.named(["nope"])).indexes == 0)
        // A predicate crosses the ABI as the names it accepts (the plugin lists them first).
        let predicate = try await engine.verifyIndexes(IndexSelection { $0.hasPrefix("a") })
        #expect(predicate.indexes == 1 && predicate.entries == 30)
        let progress = ProgressLog()
        _ = try await engine.rebuildIndexes(.all, progress: { done, total in progress.append(done, total) })
        #expect(progress.calls == [[60, 60]])
        let empty = try PostgresFixture.engine(try await PostgresFixture.options())
        #expect(try await empty.verifyIndexes().isConsistent)
        #expect(try await empty.rebuildIndexes() == IndexRebuild(indexes: 0, entries: 0))
    }

    @Test("verify finds entries deleted, altered and added with SQL; rebuild repairs one index, then all")
    func damaged() async throws {
        let (engine, schema) = try await populated()
        let hitsA = try await engine.scan(IndexScan(index: "a"))
        let hitsB = try await engine.scan(IndexScan(index: "b"))
        let server = try await PostgresServer.shared()
        _ = try await server.psql(
            """
            DELETE FROM \(schema).entries WHERE index_name = 'a' AND path = 'c/d7';
            UPDATE \(schema).entries SET key = '\\x63' WHERE index_name = 'b' AND path = 'c/d3';
            INSERT INTO \(schema).entries VALUES ('b', '\\x01', 'c/ghost');
            """)
        let report = try await engine.verifyIndexes(.all, maximumReported: 100, progress: nil)
        #expect(!report.isConsistent)
        #expect(report.differenceCount == 4)
        #expect(
            Set(report.differences) == [
                IndexDifference(kind: .missing, index: "a", key: [2], path: "c/d7"),
                IndexDifference(kind: .missing, index: "b", key: [3], path: "c/d3"),
                IndexDifference(kind: .unexpected, index: "b", key: [0x63], path: "c/d3"),
                IndexDifference(kind: .unexpected, index: "b", key: [1], path: "c/ghost"),
            ])
        let capped = try await engine.verifyIndexes(.all, maximumReported: 1, progress: nil)
        #expect(capped.differences.count == 1 && capped.differenceCount == 4)
        let countOnly = try await engine.verifyIndexes(.all, maximumReported: 0, progress: nil)
        #expect(countOnly.differences.isEmpty && countOnly.differenceCount == 4)
        #expect(try await engine.verifyIndexes(.named(["a"])).differenceCount == 1)
        #expect(try await engine.verifyIndexes(IndexSelection { $0 == "b" }).differenceCount == 3)

        #expect(try await engine.rebuildIndexes(.named(["a"])) == IndexRebuild(indexes: 1, entries: 30))
        #expect(try await engine.scan(IndexScan(index: "a")) == hitsA)
        #expect(try await engine.verifyIndexes().differenceCount == 3)
        #expect(try await engine.rebuildIndexes() == IndexRebuild(indexes: 2, entries: 60))
        #expect(try await engine.verifyIndexes().isConsistent)
        #expect(try await engine.scan(IndexScan(index: "b")) == hitsB)
        // The rebuilt entries are the documents' own: a later write still replaces them exactly.
        _ = try await engine.commit(
            [DocumentMutation(path: "c/d3", kind: .put(body: [], indexEntries: [IndexEntry(index: "b", key: [200])]))],
            commitTime: 2)
        #expect(try await engine.verifyIndexes().isConsistent)
        #expect(try await engine.scan(IndexScan(index: "b")).count == 30)
    }
}

private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [[Int]] = []
    var calls: [[Int]] { lock.withLock { log } }
    func append(_ done: Int, _ total: Int) { lock.withLock { log.append([done, total]) } }
}
