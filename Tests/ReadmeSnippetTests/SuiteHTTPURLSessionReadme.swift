// swift-format-ignore-file
// Modules/SuiteHTTPURLSession/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// Compiled, not called: it reaches api.example.com (SuiteHTTPTests run the transport against nginx).
import SuiteHTTP
import SuiteHTTPURLSession

func suiteHTTPURLSessionReadme() async throws {
    let transport = URLSessionTransport(timeout: .seconds(10))   // or URLSessionTransport(session: yourSession)
    let response = try await transport.send(HTTPTransportRequest(method: "GET", url: "https://api.example.com/items"))
    print(response.status, response.body.count)
    try await transport.shutdown()                              // invalidates the session it made
}
