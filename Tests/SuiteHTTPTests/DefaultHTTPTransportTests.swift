import SuiteHTTP
import SuiteHTTPURLSession
import Testing

@Suite("the library modules' default transport")
struct DefaultHTTPTransportTests {
    @Test(
        "a program linking SuiteHTTPURLSession gets its own URLSessionTransport, found by name, with its options"
    )
    func linkedURLSessionIsTheDefault() async throws {
        #expect(_typeByName(DefaultHTTPTransport.urlSessionTransportName) == URLSessionTransport.self)
        let transport = DefaultHTTPTransport.make(timeout: .seconds(7), maximumBodyBytes: 1234)
        let urlSession = try #require(transport as? URLSessionTransport)
        #expect(urlSession.timeout == .seconds(7))
        #expect(urlSession.maximumBodyBytes == 1234)
        try await transport.shutdown()
    }

    @Test("with none linked, each request fails as invalidRequest, with a hint saying what to link or pass")
    func unlinkedTransportFailsWithAHint() async throws {
        let error = await #expect(throws: HTTPTransportError.self) {
            try await UnlinkedHTTPTransport().send(HTTPTransportRequest(method: "GET", url: "https://example.com/a"))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("GET https://example.com/a") == true)
        #expect(error?.hint?.contains("Cache, Sync or Analytics product") == true)
        #expect(error?.hint?.contains("AsyncHTTPClientTransport") == true)
    }
}
