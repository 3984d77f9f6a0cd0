// swift-format-ignore-file
// Modules/SuiteServer/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// Compiled, not called: it serves until the task ends (EndToEndTests run `suite serve`).
import Documents
import SuiteServer

func suiteServerReadme() async throws {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "documents.sqlite"))
    let accounts = try ServerAccounts(path: "server.sqlite")
    print(try await accounts.add("ana"))  // a bearer token, shown once
    let server = SuiteServer(
        store: store, accounts: accounts, rules: .standard, configuration: .init(host: "127.0.0.1", port: 8080))
    try await server.run { port in print("listening on \(port)") }  // until the task's graceful shutdown
}
