@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import SuitePluginKit
import Synchronization
import Testing

/// A large commit of unconditional puts (a bulk import's chunk) is written with `COPY`, not `commit_v3`: it must leave
/// exactly what `commit_v3` leaves — documents, index entries, the documents' own entry lists, the change log, the
/// sequence — apply whole or not at all, and notify listeners. Commits of at least 1,000 documents are copied.
@Suite("PostgresDocuments commits by COPY")
struct PostgresCopyCommitTests {
    /// Paths, index names, keys and bodies with what COPY's text format and array literals treat specially.
    private static let awkward = [
        "tab\there", "new\nline", "cr\rhere", "back\\slash", "quote\"d", "{braces}", "com,ma", "sp ace", "NULL", "",
        "\\N", "\\.", "e\u{301}", "\u{E9}", "日本", "emoji 🎉",
    ]

    /// `count` puts into `items`, some with awkward ids, each with entries in three indexes (one awkwardly named).
    private func puts(_ count: Int, salt: String = "", from first: Int = 0) -> [DocumentMutation] {
        (first..<first + count).map { i in
            let awkward = Self.awkward[i % Self.awkward.count]
            let id = i % 7 == 0 ? "d\(i) \(awkward)" : "d\(i)"
            var body = ValueCodec.encode(["n": .int(Int64(i)), "s": .string(awkward + salt)])
            if i % 11 == 0 { body = [0, 9, 10, 13, 92, 255, UInt8(i % 256)] }  // not a Documents body: no JSON
            let entries = [
                IndexEntry(index: "n", key: Array("\(i)".utf8)),
                IndexEntry(index: "idx \"\\\t{,}", key: [0, 9, 10, 13, 92, 255] + Array((awkward + salt).utf8)),
                IndexEntry(index: "s" + salt, key: Array(awkward.utf8)),
            ]
            return DocumentMutation(
                path: "items/\(id)", kind: .put(body: body, indexEntries: i % 13 == 0 ? [] : entries))
        }
    }

    /// A check that always holds: it makes a commit of the same puts go through `commit_v3` (copies have none).
    private let forceFunction = DocumentMutation(path: "other/never", kind: .check, precondition: .exists(false))

    /// Everything the engine reads back of a store: documents, each index's hits, the change log, the sequence.
    private struct Contents: Equatable {
        var documents: [StoredDocument]
        var hits: [String: [IndexHit]]
        var changes: [ChangeRecord]
        var sequence: Int64
    }

    private func contents(_ engine: PluginDocumentEngine, indexes: [String]) async throws -> Contents {
        var hits: [String: [IndexHit]] = [:]
        for index in indexes { hits[index] = try await engine.scan(IndexScan(index: index)) }
        return Contents(
            documents: try await engine.documents(inCollection: "items", after: nil, limit: nil), hits: hits,
            changes: try await engine.changes(after: 0, limit: 1_000_000), sequence: try await engine.lastSequence())
    }

    private func schema(_ options: JSONValue) -> String { options["schema"]?.stringValue ?? "" }

    /// Whether the schema's `commit_v3` is there: hiding it proves that a commit does not call it.
    private func commitFunction(_ schema: String, present: Bool) async throws {
        let server = try await PostgresServer.shared()
        _ = try await server.psql(
            present
                ? "ALTER FUNCTION \(schema).commit_v3_hidden RENAME TO commit_v3"
                : "ALTER FUNCTION \(schema).commit_v3 RENAME TO commit_v3_hidden")
    }

    @Test(
        "a copied commit leaves what commit_v3 leaves: documents, entries, change log, results",
        arguments: [false, true])
    func copyMatchesFunction(json: Bool) async throws {
        let copiedOptions = try await PostgresFixture.options(json: json)
        let copied = try PostgresFixture.engine(copiedOptions)
        let called = try PostgresFixture.engine(try await PostgresFixture.options(json: json))
        let indexes = ["n", "idx \"\\\t{,}", "s"]
        _ = try await copied.commit(puts(3), commitTime: 5)
        _ = try await called.commit(puts(3), commitTime: 5)
        // Without commit_v3 in its schema, the large commit can only be a copy.
        try await commitFunction(schema(copiedOptions), present: false)
        let copyResult = try await copied.commit(puts(1_500, from: 3), commitTime: 7)
        try await commitFunction(schema(copiedOptions), present: true)
        let functionResult = try await called.commit(puts(1_500, from: 3) + [forceFunction], commitTime: 7)
        #expect(copyResult.sequence == 2)
        #expect(copyResult.documents == Array(functionResult.documents.dropLast()))
        #expect(copyResult.documents.allSatisfy { $0?.version == 2 && $0?.createTime == 7 && $0?.updateTime == 7 })
        let expected = try await contents(called, indexes: indexes)
        #expect(expected.documents.count == 1_503)
        #expect(try await contents(copied, indexes: indexes) == expected)
        // The documents' own entry lists (which a rewrite deletes) agree with the entries table.
        #expect(try await copied.verifyIndexes().isConsistent)
        #expect(try await copied.verifyIndexes().entries == expected.hits.values.map(\.count).reduce(0, +))
        // A rewrite of copied documents removes exactly their old entries.
        _ = try await copied.commit(puts(20, salt: "x", from: 3) + [forceFunction], commitTime: 9)
        _ = try await called.commit(puts(20, salt: "x", from: 3) + [forceFunction], commitTime: 9)
        let indexesAfter = indexes + ["sx"]
        #expect(try await contents(copied, indexes: indexesAfter) == contents(called, indexes: indexesAfter))
        #expect(try await copied.verifyIndexes().isConsistent)
    }

    @Test("with the json option, a copied document's JSONB is readable from SQL")
    func copiedJSON() async throws {
        let options = try await PostgresFixture.options(json: true)
        let engine = try PostgresFixture.engine(options)
        _ = try await engine.commit(puts(1_000), commitTime: 1)
        let server = try await PostgresServer.shared()
        let row = try await server.psql(
            """
            SELECT string_agg(data->>'s' || '|' || (data->>'n'), ' ' ORDER BY path) FROM \(schema(options)).documents
            WHERE path IN ('items/d3', 'items/d4', 'items/d14 日本');
            SELECT count(*) FROM \(schema(options)).documents WHERE data IS NULL
            """)
        // Documents' bodies only (every 11th is not one) have no JSON.
        #expect(row.split(separator: "\n") == ["日本|14 back\\slash|3 quote\"d|4", "91"])
    }

    @Test("a large commit that rewrites documents fails its copy and runs commit_v3: create times kept")
    func rewriteFallsBack() async throws {
        let options = try await PostgresFixture.options()
        let engine = try PostgresFixture.engine(options)
        let first = try await engine.commit(puts(1_000), commitTime: 1)
        #expect(first.sequence == 1)
        // Half of these exist: the copy fails on the documents' primary key; commit_v3 rewrites them and creates the
        // rest.
        let second = try await engine.commit(puts(1_000, salt: "y", from: 500), commitTime: 2)
        #expect(second.sequence == 2)
        let documents = second.documents.compactMap { $0 }
        #expect(documents.filter { $0.createTime == 1 }.count == 500)
        #expect(documents.filter { $0.createTime == 2 }.count == 500)
        #expect(try await engine.verifyIndexes().isConsistent)
        // Index `s` keeps the entries of the documents not rewritten; `sy` has the rewritten and the new ones.
        #expect(try await engine.scan(IndexScan(index: "s")).count == (0..<500).filter { $0 % 13 != 0 }.count)
        #expect(try await engine.scan(IndexScan(index: "sy")).count == (500..<1_500).filter { $0 % 13 != 0 }.count)
        let changes = try await engine.changes(after: 1, limit: 10_000)
        #expect(changes.count == 1_000 && changes.allSatisfy { $0.sequence == 2 })
        // New documents again: copied, the first after a check under the lock, the next one without.
        try await commitFunction(schema(options), present: false)
        #expect(try await engine.commit(puts(1_000, from: 2_000), commitTime: 3).sequence == 3)
        #expect(try await engine.commit(puts(1_000, from: 3_000), commitTime: 4).sequence == 4)
        try await commitFunction(schema(options), present: true)
        #expect(try await engine.documents(inCollection: "items", after: nil, limit: nil).count == 3_500)
        #expect(try await engine.verifyIndexes().isConsistent)
    }

    @Test("a copy that fails, halfway or at COMMIT, leaves nothing, and the next commit gets the next sequence")
    func failedCopyLeavesNothing() async throws {
        let options = try await PostgresFixture.options()
        let s = schema(options)
        let engine = try PostgresFixture.engine(options)
        _ = try await engine.commit(puts(3), commitTime: 1)
        let before = try await contents(engine, indexes: ["n", "s"])
        let server = try await PostgresServer.shared()
        // Halfway: the documents are copied, then an entry's row is refused.
        _ = try await server.psql("ALTER TABLE \(s).entries ADD CONSTRAINT refuse CHECK (key <> '\\x353030')")
        await #expect(throws: DocumentsError.self) { _ = try await engine.commit(puts(1_000, from: 3), commitTime: 2) }
        #expect(try await contents(engine, indexes: ["n", "s"]) == before)
        _ = try await server.psql("ALTER TABLE \(s).entries DROP CONSTRAINT refuse")
        // At COMMIT: a deferred trigger fails the transaction after every statement answered.
        _ = try await server.psql(
            """
            CREATE FUNCTION \(s).refuse() RETURNS trigger LANGUAGE plpgsql
                AS $$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$;
            CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON \(s).documents DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW WHEN (NEW.path = 'items/d600') EXECUTE FUNCTION \(s).refuse();
            """)
        await #expect(throws: DocumentsError.self) { _ = try await engine.commit(puts(1_000, from: 3), commitTime: 3) }
        #expect(try await contents(engine, indexes: ["n", "s"]) == before)
        _ = try await server.psql("DROP TRIGGER refuse ON \(s).documents")
        let next = try await engine.commit(puts(1_000, from: 3), commitTime: 4)
        #expect(next.sequence == 2)
        #expect(try await engine.documents(inCollection: "items", after: nil, limit: nil).count == 1_003)
    }

    @Test("a path or index name with NUL is refused as invalid, as in commit_v3, and nothing is written")
    func nulRefused() async throws {
        let engine = try PostgresFixture.engine(try await PostgresFixture.options())
        var withNUL = puts(1_000)
        withNUL[500] = DocumentMutation(path: "items/nul\0here", kind: .put(body: [1], indexEntries: []))
        var nulIndex = puts(1_000)
        nulIndex[500] = DocumentMutation(
            path: "items/x", kind: .put(body: [1], indexEntries: [IndexEntry(index: "a\0b", key: [1])]))
        for mutations in [withNUL, nulIndex] {
            do {
                _ = try await engine.commit(mutations, commitTime: 1)
                Issue.record("a NUL path or index name was accepted")
            } catch let error as DocumentsError {
                #expect(error.code == .invalidValue)
            }
        }
        #expect(try await engine.lastSequence() == 0)
    }

    @Test("a copied commit wakes a listener of another engine, and copies and commit_v3 calls keep sequence order")
    func notifiesAndSerialises() async throws {
        let options = try await PostgresFixture.options()
        let waiting = try PostgresFixture.engine(options)
        let writers = [try PostgresFixture.engine(options), try PostgresFixture.engine(options)]
        await waiting.waitForChanges(after: try await waiting.lastSequence(), timeout: .seconds(30))
        async let woke: Void = waiting.waitForChanges(after: 0, timeout: .seconds(60))
        // Copies of 1,000 documents and single puts, from two engines at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<3 {
                group.addTask { _ = try await writers[0].commit(puts(1_000, from: round * 1_000), commitTime: 1) }
                group.addTask {
                    for i in 0..<5 {
                        _ = try await writers[1].commit(puts(1, salt: "z", from: 10_000 + round * 5 + i), commitTime: 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        await woke
        #expect(try await waiting.lastSequence() == 18)
        let changes = try await waiting.changes(after: 0, limit: 100_000)
        #expect(changes.count == 3_015)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.sequence <= $1.sequence })
        #expect(Set(changes.map(\.sequence)) == Set(1...18))
        for change in changes { #expect(change.document?.version == change.sequence) }
    }

    @Test("a server killed under a stream of copied commits keeps every acknowledged one whole and no partial one")
    func killUnderCopies() async throws {
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let options: JSONValue = [
            "url": .string(server.url), "schema": "crash", "pool-size": 4, "connect-timeout": 10,
        ]
        let engine = try PostgresFixture.engine(options)
        let chunks = ChunkCounter()
        let writer = Task { () -> Int in
            var chunk = 0
            while chunk < 1_000 {
                do {
                    _ = try await engine.commit(puts(1_000, from: chunk * 1_000), commitTime: Int64(chunk))
                    chunks.value.add(1, ordering: .relaxed)
                    chunk += 1
                } catch {
                    // Before the kill, a slow machine's lease timeout (nothing sent): retry. After it, the stream ends.
                    if chunks.killed.load(ordering: .relaxed) { return chunk }
                }
            }
            return chunk
        }
        // Kill it mid-stream, once a few chunks are acknowledged (however slow the machine is).
        let deadline = ContinuousClock.now + .seconds(120)
        while chunks.value.load(ordering: .relaxed) < 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        chunks.killed.store(true, ordering: .relaxed)
        server.kill()
        let acknowledged = try await writer.value
        #expect(acknowledged >= 3)
        try await server.restart()
        let reopened = try PostgresFixture.engine(options)
        let all = try await reopened.documents(inCollection: "items", after: nil, limit: nil)
        // Whole chunks only (each 1,000 documents, its entries and its change-log row), every acknowledged one.
        #expect(all.count % 1_000 == 0 && all.count / 1_000 >= acknowledged && all.count / 1_000 <= acknowledged + 1)
        let found = try await reopened.documents(at: puts(acknowledged * 1_000).map(\.path))
        #expect(found.allSatisfy { $0 != nil }, "an acknowledged chunk is missing after the crash")
        #expect(try await reopened.changes(after: 0, limit: 1_000_000).count == all.count)
        #expect(try await reopened.lastSequence() == Int64(all.count / 1_000))
        #expect(try await reopened.verifyIndexes().isConsistent)
    }

    @Test("the bulk importer's chunks through the plugin (prepareCommit) are copied")
    func importerChunks() async throws {
        let options = try await PostgresFixture.options()
        let store = DocumentStore(engine: try PostgresFixture.engine(options))
        try await commitFunction(schema(options), present: false)
        let documents: [(id: String?, data: DocumentData)] = (0..<3_000).map { i in
            ("i\(i)", ["city": .string("c\(i % 10)"), "n": .int(Int64(i))])
        }
        let imported = try await store.importDocuments(
            into: try store.collection("items"), documents, chunkSize: 1_000)
        try await commitFunction(schema(options), present: true)
        #expect(imported == 3_000)
        let found = try await store.collection("items").whereField("city", isEqualTo: "c3").getDocuments()
        #expect(found.documents.count == 300)
        #expect(try await store.verifyIndexes().isConsistent)
    }
}

private final class ChunkCounter: Sendable {
    let value = Atomic<Int>(0)
    let killed = Atomic<Bool>(false)
}
