@_spi(Engine) import Documents
import Testing

// The names part of the DocumentEngine contract: paths compared by their bytes, names no engine can store.

private func entry(_ index: String, _ key: [UInt8]) -> IndexEntry { IndexEntry(index: index, key: key) }

private func put(_ path: String, _ text: String, entries: [IndexEntry] = []) -> DocumentMutation {
    DocumentMutation(path: path, kind: .put(body: Array(text.utf8), indexEntries: entries))
}

extension DocumentEngineContract {
    /// Paths are equal only when their UTF-8 bytes are: `c/\u{E9}` and `c/e\u{301}` (both `c/é`) are two documents,
    /// though Swift's strings call them equal. The in-memory engine keyed its documents by `String` and merged them.
    /// Found by the query differential fuzzer.
    static func canonicallyEquivalentPathsAreTwoDocuments(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        let (composed, decomposed) = ("c/\u{E9}", "c/e\u{301}")
        _ = try await engine.commit([put(composed, "one", entries: [entry("c|x", [1])])], commitTime: 1)
        _ = try await engine.commit([put(decomposed, "two", entries: [entry("c|x", [1])])], commitTime: 2)
        let read = try await engine.documents(at: [composed, decomposed])
        #expect(read.map { $0.map { String(decoding: $0.body, as: UTF8.self) } } == ["one", "two"])
        #expect(read.map { $0.map { Array($0.path.utf8) } } == [Array(composed.utf8), Array(decomposed.utf8)])
        #expect(try await engine.documents(inCollection: "c", after: nil, limit: nil).count == 2)
        #expect(try await engine.scan(IndexScan(index: "c|x")).count == 2)
        // Both in one commit, then one deleted: the other stays.
        _ = try await engine.commit(
            [put(composed, "1", entries: [entry("c|x", [1])]), put(decomposed, "2", entries: [entry("c|x", [1])])],
            commitTime: 3)
        _ = try await engine.commit([DocumentMutation(path: composed, kind: .delete)], commitTime: 4)
        #expect(try await engine.document(at: composed) == nil)
        #expect(try await engine.document(at: decomposed).map { String(decoding: $0.body, as: UTF8.self) } == "2")
        #expect(try await engine.scan(IndexScan(index: "c|x")).map { Array($0.path.utf8) } == [Array(decomposed.utf8)])
        // A backfill over both spellings gives each its own entries.
        _ = try await engine.commit([put(composed, "3")], commitTime: 5)
        try await engine.addIndexEntries([
            IndexAddition(path: composed, entries: [entry("c|y", [1])]),
            IndexAddition(path: decomposed, entries: [entry("c|y", [2])]),
        ])
        #expect(
            try await engine.scan(IndexScan(index: "c|y")).map { [$0.key, Array($0.path.utf8)] } == [
                [[1], Array(composed.utf8)], [[2], Array(decomposed.utf8)],
            ])
    }

    /// A read naming a path with NUL in it finds nothing where nothing was stored, on every engine: PostgreSQL's text
    /// cannot hold NUL, and its engine refused such reads (`__name__ == "a\0"` in a query) where the others answered.
    /// Found by the query differential fuzzer.
    static func readsNamingPathsWithNULFindNothing(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        _ = try await engine.commit([put("c/a", "one")], commitTime: 1)
        let read = try await engine.documents(at: ["c/a\u{0}", "c/a", "c\u{0}/x"])
        #expect(read.map { $0.map { String(decoding: $0.body, as: UTF8.self) } } == [nil, "one", nil])
        #expect(try await engine.document(at: "c/\u{0}") == nil)
        #expect(try await engine.documents(inCollection: "c\u{0}", after: nil, limit: nil).isEmpty)
        #expect(try await engine.documents(inCollectionGroup: "c\u{0}", after: nil, limit: nil).isEmpty)
        #expect(try await engine.documents(inCollection: "c", after: "c/a\u{0}", limit: nil).isEmpty)
        #expect(try await engine.collectionIDs(under: "c/a\u{0}") ?? [] == [])
    }
}
