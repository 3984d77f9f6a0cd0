@_spi(Engine) import Documents
import Testing

// The browsing part of the DocumentEngine contract: collection ids, for the web console.

extension DocumentEngineContract {
    private static func put(_ paths: [String], _ engine: any DocumentEngine) async throws {
        let mutations = paths.map {
            DocumentMutation(path: $0, kind: .put(body: Array("{}".utf8), indexEntries: []), precondition: .none)
        }
        _ = try await engine.commit(mutations, commitTime: 1)
    }

    static func collectionIDsSkipOverDocumentsAndDeeperCollections(_ factory: DocumentEngineFactory) async throws {
        let engine = try await factory.make().engine
        // `orders` holds documents only deeper down; `orders-x` sorts between `orders` and `orders/…` bytewise and
        // `orders0` right after `orders/…`; `z` exists only below a document that does not exist itself.
        try await Self.put(
            [
                "users/ana", "users/ana/orders-x/o1", "users/ana/orders/o1/items/i1", "users/ana/notes/n1",
                "users/ana/orders0/o", "users/bob/orders/o1", "products/p1", "a/b/c/d", "users/ana/z/1/y/2",
            ] + (0..<50).map { "users/ana/notes/n\($0 + 100)" }, engine)
        #expect(try await engine.collectionIDs(under: nil) == ["a", "products", "users"])
        #expect(
            try await engine.collectionIDs(under: "users/ana") == ["notes", "orders", "orders-x", "orders0", "z"])
        #expect(try await engine.collectionIDs(under: "users/bob") == ["orders"])
        #expect(try await engine.collectionIDs(under: "users/ana/orders/o1") == ["items"])
        #expect(try await engine.collectionIDs(under: "users/nobody") == [])
        // A prefix of a document id names another document.
        #expect(try await engine.collectionIDs(under: "users/an") == [])
        _ = try await engine.commit(
            [DocumentMutation(path: "users/ana/orders0/o", kind: .delete, precondition: .none)], commitTime: 2)
        #expect(try await engine.collectionIDs(under: "users/ana") == ["notes", "orders", "orders-x", "z"])
    }

    /// Under a collection path the same listing names the collection's documents that have subcollections, whether
    /// they exist or not (`DocumentStore.parentDocumentIDs(in:)`, which a resync's walk uses).
    static func collectionIDsUnderACollectionNameItsDocumentsWithSubcollections(_ factory: DocumentEngineFactory)
        async throws
    {
        let engine = try await factory.make().engine
        try await Self.put(
            [
                "users/ana", "users/ana/notes/n1", "users/bob", "users/cy/notes/n1", "users/cy-x/a/b",
                "users/cy0/a/b/c/d", "usersx/dan/a/b", "users/ana/notes/n1/tags/t",
            ], engine)
        #expect(try await engine.collectionIDs(under: "users") == ["ana", "cy", "cy-x", "cy0"])
        #expect(try await engine.collectionIDs(under: "users/ana/notes") == ["n1"])
        #expect(try await engine.collectionIDs(under: "users/cy0/a") == ["b"])
        #expect(try await engine.collectionIDs(under: "use") == [])
    }
}
