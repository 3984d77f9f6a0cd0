import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

/// Browsing without a query (the web console): collection ids under a document or the root, and pages of a
/// collection by cursor, on the built-in engines (the engine contract covers collection ids in depth).
@Suite("Store browsing")
struct StoreBrowseTests {
    @Test(arguments: DocumentEngineFactory.all)
    func collectionIDsThroughTheStore(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        try await store.document("users/ana/orders/o1").setData(["x": 1])
        try await store.document("products/p1").setData(["x": 1])
        #expect(try await store.collectionIDs() == ["products", "users"])
        #expect(try await store.collectionIDs(under: try DocumentPath("users/ana")) == ["orders"])
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
