// swift-format-ignore-file
// Modules/SuiteHTTP/README.md's and its DocC article's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them
// line by line). Compiled, not called: they reach api.example.com (SuiteHTTPTests run the same calls against nginx).
import Foundation
import SuiteHTTP
import SuiteHTTPURLSession

func suiteHTTPReadme() async throws {
    let transport = URLSessionTransport(timeout: .seconds(10))   // or URLSessionTransport(session: yourSession)
    let request = HTTPTransportRequest(method: "GET", url: "https://api.example.com/items", headers: [HTTPHeader("Accept", "application/json")])
    do {
        let response = try await transport.send(request)          // any status is a response: check response.status
        print(response.status, response.header("etag") ?? "", response.body.count)
    } catch let error as HTTPTransportError where error.code == .unreachable {
        print("offline:", error.message)                           // .timedOut, .tooLarge, .invalidRequest, .failed
    }
}

struct Recording: HTTPTransport {
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        HTTPTransportResponse(status: 204, headers: [], body: [])
    }
}
