import Foundation
import SuiteCore
import Testing

@_spi(Engine) @testable import Documents

/// Bulk-import plumbing is `package` (not in `DocumentEngine`'s public requirements), yet an engine of this package
/// that prepares commits ahead (`CommitPreparing`) is still reached through `any DocumentEngine`, as the importer
/// holds it; other engines get plain mutations.
@Test("bulk preparation reaches the SQLite engine through any DocumentEngine; other engines get plain mutations")
func bulkPreparationThroughTheProtocol() async throws {
    var entries = IndexEntryBatch()
    entries.append(IndexEntry(index: "c|a", key: [1]))
    entries.endDocument()
    let body = ValueCodec.encode(["a": .int(1)])
    let puts = try BulkPuts(paths: ["c/d"], bodies: [body], entries: entries)

    let sqlite: any DocumentEngine = try SQLiteDocumentEngine(path: try TemporaryFiles.newDatabasePath())
    let prepared = try await sqlite.prepareCommit(puts)
    #expect(prepared.engineWork != nil)
    _ = try await sqlite.commit(prepared, commitTime: 1)
    #expect(try await sqlite.document(at: "c/d")?.body == body)
    let hits = try await sqlite.scan(IndexScan(index: "c|a"))
    #expect(hits.map(\.path) == ["c/d"])

    let memory: any DocumentEngine = InMemoryDocumentEngine()
    let plain = try await memory.prepareCommit(puts)
    #expect(plain.engineWork == nil)
    #expect(plain.mutations == puts.mutations())
    _ = try await memory.commit(plain, commitTime: 1)
    #expect(try await memory.scan(IndexScan(index: "c|a")).map(\.path) == ["c/d"])
    await sqlite.shutdown()
}
