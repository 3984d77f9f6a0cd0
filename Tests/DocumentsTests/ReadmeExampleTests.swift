import Documents
import Foundation
import Logging
import SuiteCore
import Testing

/// The main doc comments' examples (`DocumentStore`, `CollectionReference`, `Query`, `FieldValue`, `DocumentSnapshot`),
/// compiled as written.
func docCommentExamples(file: String, bus: EventBus, logger: Logger) async throws {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: file), bus: bus, logger: logger)
    let user = try await store.document("users/u1").setData(["name": "Ada", "points": 10])
    let top = try await store.collection("users").whereField("points", isGreaterThan: 5).getDocuments()

    let orders = try store.collection("users/u1/orders")
    let created = try await orders.addDocument(data: ["total": 12.5, "status": "open"])
    let open = try await orders.whereField("status", isEqualTo: "open").getDocuments()

    let page = try await store.collection("users")
        .whereField("points", isGreaterThanOrEqualTo: 10)
        .order(by: "points", descending: true)
        .limit(to: 20)
        .getDocuments()

    try await store.document("stats/daily").setData(
        ["orders": .increment(1), "updatedAt": .serverTimestamp, "label": "daily"], merge: true)
    let snapshot = try await store.document("users/u1").getDocument()
    let points = try snapshot.get("points", as: Int.self) ?? 0
    _ = (user, top, created, open, page, points)
}

/// The missing-index hint's Swift call, in the form `IndexDefinition.swiftDeclaration` prints (checked below).
func declareIndexAsTheHintSays(store: DocumentStore) async throws {
    try await store.declareIndex(
        IndexDefinition(collectionID: "users", fields: [.init("city"), .init("age", order: .descending)]))
}

/// The README's loyalty example, run (the same calls as the snippet in Tests/ReadmeSnippetTests/DocumentsReadme.swift,
/// without the endless listener loop).
@Test("the README's loyalty example runs as written")
func readmeExample() async throws {
    let bus = EventBus()
    let file = URL(fileURLWithPath: try TemporaryFiles.newDatabasePath())
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: file.path), bus: bus)
    let user = try store.document("users/u1")
    let written = try await user.setData(["name": "Ana", "points": 25])
    #expect(written.version > 0)

    try await store.runTransaction { tx in
        let points = try await tx.getDocument(user).get("points", as: Int.self) ?? 0
        guard points >= 10 else { throw DocumentsError(.invalidValue, "not enough points") }
        try tx.updateData(["points": .increment(-10)], forDocument: user)
        tx.setData(
            ["user": .value(.reference("users/u1")), "delta": -10],
            forDocument: try store.collection("pointTransactions").document())
    }

    let rich = try await store.collection("users").whereField("points", isGreaterThanOrEqualTo: 10).getDocuments()
    #expect(rich.documents.map { $0.get("points") } == [.int(15)])
    #expect(try await store.collection("pointTransactions").query.count() == 1)
    await store.close()
}

/// The missing-index error's Swift hint is the call compiled in `declareIndexAsTheHintSays`.
@Test("the missing-index hint's Swift call is one that compiles")
func missingIndexHintCompiles() async throws {
    let store = DocumentStore(engine: InMemoryDocumentEngine(), bus: nil)
    let query = try store.collection("users").whereField("city", isEqualTo: "Paris").order(by: "age", descending: true)
    let error = await StoreTesting.documentsError { _ = try await query.getDocuments() }
    // The function's body, whitespace removed (the formatter may wrap it), is the hint's call.
    let source = try Readme.source(#filePath)
    let start = try #require(source.range(of: "func declareIndexAsTheHintSays(store: DocumentStore) async throws {"))
    let end = try #require(source[start.upperBound...].range(of: "\n}\n"))
    let body = source[start.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
    #expect(error?.hint?.filter { !$0.isWhitespace } == "orfromSwift:" + body)
    try await declareIndexAsTheHintSays(store: store)
    #expect(try await query.getDocuments().documents.isEmpty)
}

/// Reading this file's own source.
enum Readme {
    static func source(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
}
