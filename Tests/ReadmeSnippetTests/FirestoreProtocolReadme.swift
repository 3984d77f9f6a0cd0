// swift-format-ignore-file
// Modules/FirestoreProtocol/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// Compiled, not called: it serves until the task ends (FirestoreProtocolTests run the server).
import Documents
import FirestoreProtocol
import SuiteServer

func firestoreProtocolReadme() async throws {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "documents.sqlite"))
    let accounts = try ServerAccounts(path: "server.sqlite")
    let firestore = try FirestoreServer(
        store: store, accounts: accounts, rules: .standard,
        configuration: .init(host: "127.0.0.1", port: 8081), openDatabase: { _, _ in nil })
    try await firestore.run { port in print("FIRESTORE_EMULATOR_HOST=127.0.0.1:\(port)") }
}
