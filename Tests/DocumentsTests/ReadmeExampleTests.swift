import Documents
import Foundation
import SuiteCore
import Testing

/// The Documents README's example, compiled and run, so the documentation cannot drift from the API.
@Test("the README's loyalty example runs as written")
func readmeExample() async throws {
    let bus = EventBus()
    let file = URL(fileURLWithPath: try TemporaryFiles.newDatabasePath())
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: file.path), bus: bus)
    let user = try store.document("users/u1")
    let written = try await user.setData(["name": "Ana", "points": 25])
    #expect(written.version > 0)

    try await store.runTransaction { tx in
        guard case .int(let points)? = try await tx.getDocument(user).get("points"), points >= 10 else {
            throw DocumentsError(.invalidValue, "not enough points")
        }
        try tx.updateData(["points": .increment(-10)], forDocument: user)
        tx.setData(
            ["user": .value(.reference("users/u1")), "delta": -10],
            forDocument: try store.collection("pointTransactions").document())
    }

    let rich = try await store.collection("users").query.whereField("points", isGreaterThanOrEqualTo: .int(10))
        .getDocuments()
    #expect(rich.documents.map { $0.get("points") } == [.int(15)])
    #expect(try await store.collection("pointTransactions").query.count() == 1)
    await store.close()
}
