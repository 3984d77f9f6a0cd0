import Documents
import Foundation
import SuiteCore
import Testing

/// Browsing without a query (the web console): collection ids under a document or the root, and pages of a
/// collection by cursor, on the built-in engines.
@Suite("Store browsing")
struct StoreBrowseTests {
    @Test(arguments: DocumentEngineFactory.all)
    func collectionIDsUnderTheRootAndADocument(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let batch = store.batch()
        // `orders` holds documents only deeper down; `orders-x` sorts between `orders` and `orders/…` bytewise;
        // `z` exists only below a document that does not exist itself.
        for path in [
            "users/ana", "users/ana/orders-x/o1", "users/ana/orders/o1/items/i1", "users/ana/notes/n1",
            "users/bob/orders/o1", "products/p1", "a/b/c/d", "users/ana/z/1/y/2",
        ] {
            batch.setData(["x": 1], forDocument: try store.document(path))
        }
        try await batch.commit()
        #expect(try await store.collectionIDs() == ["a", "products", "users"])
        #expect(
            try await store.collectionIDs(under: try DocumentPath("users/ana")) == ["notes", "orders", "orders-x", "z"])
        #expect(try await store.collectionIDs(under: try DocumentPath("users/bob")) == ["orders"])
        #expect(try await store.collectionIDs(under: try DocumentPath("users/ana/orders/o1")) == ["items"])
        #expect(try await store.collectionIDs(under: try DocumentPath("users/nobody")) == [])
        // A prefix of a document id is another document.
        #expect(try await store.collectionIDs(under: try DocumentPath("users/an")) == [])
        try await store.document("users/ana/notes/n1").delete()
        #expect(
            try await store.collectionIDs(under: try DocumentPath("users/ana")) == ["orders", "orders-x", "z"])
    }

    @Test(arguments: DocumentEngineFactory.all)
    func listDocumentsPagesByCursorInIDOrder(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let batch = store.batch()
        for index in (0..<25).reversed() {
            batch.setData(["n": .value(.int(Int64(index)))], forDocument: try store.document("items/i\(index + 100)"))
        }
        batch.setData(["deep": true], forDocument: try store.document("items/i100/sub/s1"))
        try await batch.commit()
        let collection = try CollectionPath("items")
        var seen: [String] = []
        var after: DocumentPath?
        while true {
            let page = try await store.listDocuments(in: collection, after: after, limit: 10)
            seen += page.map(\.path.string)
            guard page.count == 10, let last = page.last else { break }
            after = last.path
        }
        #expect(seen == (100..<125).map { "items/i\($0)" })
        await #expect(throws: DocumentsError.self) {
            _ = try await store.listDocuments(in: collection, limit: 0)
        }
    }
}
