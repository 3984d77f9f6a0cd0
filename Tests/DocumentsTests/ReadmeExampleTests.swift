import Documents
import Foundation
import Logging
import SuiteCore
import Testing

/// The Documents README's example as written (every line of its Swift block, in order, checked by
/// `readmeSnippetsAreCompiled`). Compiled, not called: its listener loop runs until the task ends.
func documentsReadmeSnippet() async throws {
    let bus = EventBus()  // optional: commits and costs are published on it
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "documents.sqlite"), bus: bus)
    let user = try store.document("users/u1")
    let written = try await user.setData(["name": "Ana", "points": 25])  // the result: data, version, updateTime

    // Redeem a reward: reads first, then writes; retried if the user document moves meanwhile.
    try await store.runTransaction { tx in
        let points = try await tx.getDocument(user).get("points", as: Int.self) ?? 0
        guard points >= 10 else { throw DocumentsError(.invalidValue, "not enough points") }
        try tx.updateData(["points": .increment(-10)], forDocument: user)
        tx.setData(
            ["user": .value(.reference("users/u1")), "delta": -10],
            forDocument: try store.collection("pointTransactions").document())
    }

    let rich = try await store.collection("users").whereField("points", isGreaterThanOrEqualTo: 10).getDocuments()
    for try await snapshot in try store.collection("users").query.snapshots() { print(snapshot.documentChanges) }
    _ = (written, rich)
}

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

/// The README's loyalty example, run (the same calls as the snippet, without the endless listener loop).
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

/// Every ```swift block of the root README and the Documents README appears, line by line and in order, in a Swift
/// file that a test target compiles, so the documentation cannot drift from the API.
@Test(
    "every README Swift snippet is compiled by a test target",
    arguments: [
        ("Modules/Documents/README.md", "Tests/DocumentsTests/ReadmeExampleTests.swift"),
        ("README.md", "Tests/ReadmeSnippetTests/RootReadmeSnippets.swift"),
        ("Modules/SuiteCore/README.md", "Tests/SuiteCoreTests/ReadmeSnippetTests.swift"),
        ("Modules/Cache/README.md", "Tests/CacheTests/ReadmeSnippets.swift"),
    ])
func readmeSnippetsAreCompiled(_ readme: String, _ compiledIn: String) throws {
    let blocks = Readme.swiftBlocks(try Readme.source(Readme.root + readme))
    #expect(!blocks.isEmpty)
    let compiled = Readme.lines(try Readme.source(Readme.root + compiledIn))
    for block in blocks {
        let lines = Readme.lines(block).filter { !$0.hasPrefix("import ") }
        let found = Readme.contains(compiled, lines)
        #expect(found, "\(readme): this snippet is not in \(compiledIn):\n\(block)")
    }
}

/// Reading READMEs and comparing their Swift blocks with compiled sources.
enum Readme {
    /// The package's root directory (this file is in `Tests/DocumentsTests/`).
    static let root =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/"

    static func source(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// The contents of the ```swift blocks of a Markdown text.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if current == nil, line.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
            } else if let lines = current, line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Non-empty lines without their indentation (a snippet sits indented inside a function).
    static func lines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `needle` appears in `haystack` as consecutive lines.
    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
