import Foundation
import GRDB
import Logging
import SuiteCore
import Testing

@_spi(Engine) @testable import Documents

/// Migration v4 of the SQLite engine: files written before automatic index keys were bounded hold those keys whole
/// (schema v3); opening one rewrites them as ``IndexKey/bounded(_:)`` keys, in the index and in each document's own
/// entry list, and leaves declared-index keys whole.
///
/// The v3 files are made by a current engine fed the entries a v3 store computed (automatic keys whole), then marked
/// as v3 by removing the `v4` row from `grdb_migrations`: v3 and v4 differ only in the keys' content.
@Suite("SQLite migration v4 (bounded automatic keys)")
struct SQLiteKeyBoundMigrationTests {
    static let composite = IndexDefinition(
        collectionID: "items", fields: [.init(FieldPath(validated: ["s"])), .init(FieldPath(validated: ["n"]))])

    /// A string whose key is far beyond the bound.
    static func long(_ i: Int) -> String { String(repeating: "a long value, number \(i); ", count: 4) }
    /// A string whose key is exactly one byte longer than the bound (type byte, 62 bytes, terminator): the length
    /// of a bounded key.
    static func edge(_ i: Int) -> String {
        let text = "edge \(i) "
        return text + String(repeating: "e", count: 62 - text.utf8.count)
    }

    static func data(s: String, n: Int, tags: [String]) -> DocumentData {
        ["s": .string(s), "n": .int(Int64(n)), "tags": .array(tags.map { .string($0) })]
    }

    static func parts(_ path: String) -> (collectionPath: String, collectionID: String) {
        let collectionPath = String(path[..<path.lastIndex(of: "/")!])
        return (collectionPath, String(collectionPath.split(separator: "/").last!))
    }

    /// The entries of `data` at `path` as the store computes them now: automatic keys bounded, declared keys whole.
    static func entries(_ data: DocumentData, path: String) -> [IndexEntry] {
        let (collectionPath, collectionID) = parts(path)
        return IndexPolicy.entries(
            for: data, path: path, collectionPath: collectionPath, collectionID: collectionID, declared: [composite])
    }

    /// The entries a v3 store computed for `data` (flat fields; arrays of scalars): automatic keys whole.
    static func v3Entries(_ data: DocumentData, path: String) -> [IndexEntry] {
        let (collectionPath, _) = parts(path)
        var entries: [IndexEntry] = []
        for (name, value) in data {
            let index = collectionPath + "|" + name
            entries.append(IndexEntry(index: index, key: IndexKey.encode(value)))
            if case .array(let elements) = value {
                for key in IndexPolicy.distinct(elements.map { IndexKey.encode($0) }) {
                    entries.append(IndexEntry(index: index + "|contains", key: key))
                }
            }
        }
        if parts(path).collectionID == "items" {
            IndexPolicy.addDeclaredEntries(
                composite, data: data, path: path, collectionPath: collectionPath, into: &entries)
        }
        return entries
    }

    static func put(_ path: String, _ data: DocumentData, v3: Bool) -> DocumentMutation {
        // Bounding the automatic keys of the v3 entries gives the current ones.
        let bounded = v3Entries(data, path: path).map { entry in
            IndexPolicy.isAutomaticIndex(entry.index, collectionPath: parts(path).collectionPath)
                ? IndexEntry(index: entry.index, key: IndexKey.bounded(entry.key)) : entry
        }
        #expect(Set(bounded) == Set(entries(data, path: path)))
        return DocumentMutation(
            path: path,
            kind: .put(
                body: ValueCodec.encode(data),
                indexEntries: v3 ? v3Entries(data, path: path) : entries(data, path: path)))
    }

    /// Writes documents the way a v3 engine did (or, with `v3: false`, with bounded keys, as schema v3 did once
    /// automatic keys were bounded): a bulk commit that goes straight into a run, then small commits left pending —
    /// a new document, an update, a delete, a nested collection. Returns the live documents.
    static func writeFile(_ path: String, v3: Bool) async throws -> [String: DocumentData] {
        let engine = try SQLiteDocumentEngine(
            path: path, durability: .normal, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
            tuning: IndexTuning(flushThreshold: 10_000, directRunThreshold: 64, blockBytes: 512))
        var live: [String: DocumentData] = [:]
        var bulk: [DocumentMutation] = []
        for i in 0..<40 {
            let s = i % 4 == 0 ? "short \(i)" : i % 4 == 1 ? edge(i) : long(i)
            let data = data(s: s, n: i % 3, tags: [long(100 + i % 5), "tag \(i % 2)", edge(200 + i % 3)])
            let path = "items/b" + (i < 10 ? "0" : "") + String(i)
            bulk.append(put(path, data, v3: v3))
            live[path] = data
        }
        _ = try await engine.commit(bulk, commitTime: 1)
        let small: [(String, DocumentData?)] = [
            ("items/p1", data(s: long(300), n: 1, tags: [long(301)])),
            ("items/b01", data(s: long(302), n: 2, tags: [edge(303)])),
            ("items/b02", nil),
            ("items/b03/sub/x", data(s: long(304), n: 0, tags: [long(305)])),
            ("items/b05", data(s: edge(306), n: 0, tags: [])),
        ]
        for (time, (path, data)) in small.enumerated() {
            let mutation = data.map { put(path, $0, v3: v3) } ?? DocumentMutation(path: path, kind: .delete)
            _ = try await engine.commit([mutation], commitTime: Int64(2 + time))
            live[path] = data
        }
        // The file holds what it should: whole keys, from the run and from pending operations.
        for path in ["items/b06", "items/p1", "items/b01"] {
            let key = IndexKey.encode(live[path]!["s"]!)
            let stored = v3 ? key : IndexKey.bounded(key)
            #expect(
                try await engine.scan(Self.equal("items|s", stored))
                    .map(\.path) == [path])
        }
        try engine.close()
        return live
    }

    static func equal(_ index: String, _ key: [UInt8]) -> IndexScan {
        IndexScan(
            index: index, lower: IndexBound(key: key, inclusive: true), upper: IndexBound(key: key, inclusive: true))
    }

    static func markAsVersion3(_ path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4'") }
        try queue.close()
    }

    struct IndexState: Equatable {
        var flushedThrough: Int64
        var generation: Int64
        var runs: [Int64]
        var ownEntries: [[UInt8]]
    }

    static func indexState(_ path: String) throws -> IndexState {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT flushed_through, generation FROM index_state")!
            return IndexState(
                flushedThrough: row[0], generation: row[1],
                runs: try Int64.fetchAll(db, sql: "SELECT id FROM index_runs ORDER BY id"),
                ownEntries: try Data.fetchAll(
                    db,
                    sql: "SELECT c.index_keys FROM documents d JOIN changes c ON c.id = d.change_id ORDER BY 1"
                ).map { [UInt8]($0) })
        }
    }

    /// Every index of the live documents holds exactly their current entries.
    static func expectIndexes(_ engine: SQLiteDocumentEngine, _ live: [String: DocumentData]) async throws {
        var expected: [String: [IndexHit]] = [:]
        for (path, data) in live {
            for entry in entries(data, path: path) {
                expected[entry.index, default: []].append(IndexHit(key: entry.key, path: path))
            }
        }
        for index in ["items|s", "items|n", "items|tags", "items|tags|contains", "items/b03/sub|s"] {
            expected[index, default: []].append(contentsOf: [])
        }
        for (index, hits) in expected {
            let sorted = hits.sorted {
                let c = IndexPolicy.compareBytes($0.key, $1.key)
                return c != 0 ? c < 0 : Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8))
            }
            #expect(try await engine.scan(IndexScan(index: index)) == sorted, "\(index)")
        }
    }

    /// How the migration is run: by opening the engine, or directly with a tiny run size (many runs).
    enum Migration: String, CaseIterable, CustomTestStringConvertible {
        case onOpen
        case smallRuns
        var testDescription: String { rawValue }
    }

    @Test(arguments: Migration.allCases)
    func boundsTheLongKeysOfAutomaticIndexes(_ migration: Migration) async throws {
        let path = try TemporaryFiles.newDatabasePath()
        var live = try await Self.writeFile(path, v3: true)
        try Self.markAsVersion3(path)
        let before = try Self.indexState(path)
        if migration == .smallRuns {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try SQLiteDocumentEngine.boundAutomaticIndexKeys(db, operationsPerRun: 7)
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v4')")
            }
            try queue.close()
        }

        var engine = try SQLiteDocumentEngine(path: path)
        try await Self.expectIndexes(engine, live)
        for path in ["items/b06", "items/b05", "items/p1", "items/b01", "items/b03/sub/x"] {
            let whole = IndexKey.encode(live[path]!["s"]!)
            let index = Self.parts(path).collectionPath + "|s"
            let bounded = IndexKey.bounded(whole)
            #expect(
                try await engine.scan(Self.equal(index, bounded))
                    .map(\.path) == [path])
            #expect(try await engine.scan(Self.equal(index, whole)).isEmpty)
        }
        // The declared index keeps its keys whole (`expectIndexes` compares them too).
        let compositeIndex = Self.composite.indexName(collectionPath: "items")
        #expect(
            try await engine.scan(IndexScan(index: compositeIndex)).contains {
                $0.key.count > IndexKey.maximumLength + 1
            })
        try engine.close()

        let after = try Self.indexState(path)
        #expect(after.generation == before.generation + 1)
        #expect(after.flushedThrough > before.flushedThrough)  // the pending operations were flushed first
        #expect(after.runs.count >= before.runs.count + (migration == .smallRuns ? 3 : 1))

        // Updates and deletes replace exactly the migrated entries (each document's own list was rewritten too).
        engine = try SQLiteDocumentEngine(path: path)
        let changes: [(String, DocumentData?)] = [
            ("items/b06", Self.data(s: "now short", n: 1, tags: ["t"])),
            ("items/b05", Self.data(s: Self.long(400), n: 2, tags: [Self.edge(401)])),
            ("items/b09", nil),
            ("items/p1", nil),
            ("items/b03/sub/x", Self.data(s: Self.edge(402), n: 1, tags: [])),
        ]
        for (time, (path, data)) in changes.enumerated() {
            let mutation = data.map { Self.put(path, $0, v3: false) } ?? DocumentMutation(path: path, kind: .delete)
            _ = try await engine.commit([mutation], commitTime: Int64(100 + time))
            live[path] = data
        }
        try await Self.expectIndexes(engine, live)
        try engine.close()

        // Again through flushes and merges of every run (tiny runs), old and migrated.
        engine = try SQLiteDocumentEngine.tiny(path)
        for i in 0..<12 {
            let path = "items/b" + String(10 + i)
            let data = i % 3 == 0 ? nil : Self.data(s: Self.long(500 + i), n: i % 3, tags: [Self.edge(600 + i)])
            let mutation = data.map { Self.put(path, $0, v3: false) } ?? DocumentMutation(path: path, kind: .delete)
            _ = try await engine.commit([mutation], commitTime: Int64(200 + i))
            live[path] = data
        }
        engine.waitForIndexMaintenance()
        try await Self.expectIndexes(engine, live)
        try engine.close()
    }

    @Test func aFileWithoutWholeLongKeysIsOnlyRead() async throws {
        // Bounded keys (among them keys of exactly the bounded length) and short ones: nothing to rewrite.
        let path = try TemporaryFiles.newDatabasePath()
        let live = try await Self.writeFile(path, v3: false)
        try Self.markAsVersion3(path)
        let before = try Self.indexState(path)
        let engine = try SQLiteDocumentEngine(path: path)
        try await Self.expectIndexes(engine, live)
        try engine.close()
        #expect(try Self.indexState(path) == before)
    }

    @Test func storeQueriesFindMigratedLongValues() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let live = try await Self.writeFile(path, v3: true)
        try Self.markAsVersion3(path)
        let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path), clock: ManualWallClock())
        let items = try store.collection("items")
        for id in ["b06", "b05", "p1", "b01"] {
            let s = live["items/" + id]!["s"]!
            #expect(StoreTesting.ids(try await items.whereField("s", isEqualTo: s).getDocuments()) == [id])
        }
        let tag = DocumentValue.string(Self.long(301))
        #expect(StoreTesting.ids(try await items.whereField("tags", arrayContains: tag).getDocuments()) == ["p1"])
        let edgeTag = DocumentValue.string(Self.edge(303))
        #expect(StoreTesting.ids(try await items.whereField("tags", arrayContains: edgeTag).getDocuments()) == ["b01"])
        let longTag = DocumentValue.string(Self.long(102))
        let withLongTag = live.filter { path, data in
            guard Self.parts(path).collectionPath == "items", case .array(let tags) = data["tags"] else { return false }
            return tags.contains(longTag)
        }.map { String($0.key.split(separator: "/").last!) }.sorted()
        #expect(!withLongTag.isEmpty)
        #expect(
            StoreTesting.ids(try await items.whereField("tags", arrayContains: longTag).getDocuments()) == withLongTag)
    }
}
