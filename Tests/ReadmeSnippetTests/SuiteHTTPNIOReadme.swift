// swift-format-ignore-file
// Modules/SuiteHTTPNIO/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
import Sync
import SuiteHTTPNIO

func suiteHTTPNIOReadme() async throws {
    let http = AsyncHTTPClientTransport(timeout: .seconds(40), connectTimeout: .seconds(3), retryRefusedConnections: false)
    let transport = try HTTPSyncTransport(baseURL: "http://127.0.0.1:8080", token: "suite_…", http: http)
    // … use it; then release its connections (a transport dropped without this shuts its client down too)
    try await http.shutdown()
    _ = transport
}
