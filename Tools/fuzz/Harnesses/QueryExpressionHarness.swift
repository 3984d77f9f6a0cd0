import Documents
import SuiteHost

/// The CLI's `--where` and `--order-by` expressions (`suite docs query`, also the JSON API's `where`): line 1 a filter,
/// line 2 an order; what parses runs against a small in-memory store, so the query's own checks run too.
enum QueryExpressionHarness {
    static let store: DocumentStore = {
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        Blocking.run {
            for (id, points) in [("ana", 10), ("bo", 20), ("cy", 5)] {
                let data: DocumentData = [
                    "points": .int(Int64(points)), "tags": .array([.string("coffee")]),
                    "address": .map(["city": .string("Paris")]),
                ]
                _ = try? await store.document("users/\(id)").setData(data)
            }
        }
        return store
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let lines = FuzzInput.lines(bytes, 2)
        let store = store
        guard let collection = try? store.collection("users") else { FuzzInput.fail("users is a collection") }
        var query = collection.query
        if let filtered = try? query.whereExpression(lines[0]) { query = filtered }
        if lines.count > 1, let (field, descending) = try? DocumentsCommandSupport.order(parsing: lines[1]) {
            query = query.order(by: field, descending: descending)
        }
        let finalQuery = query
        Blocking.run {
            _ = try? await finalQuery.getDocuments()
            _ = try? await finalQuery.explain()
        }
    }
}
