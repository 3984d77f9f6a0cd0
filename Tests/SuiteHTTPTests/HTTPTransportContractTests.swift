import AsyncHTTPClient
import Foundation
import NIOHTTPCompression
import SuiteCore
import SuiteHTTP
import SuiteHTTPNIO
import SuiteHTTPURLSession
import SuiteTestSupport
import Testing
import TransportTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every ``HTTPTransport`` must do, run over URLSession's and AsyncHTTPClient's against a real nginx on loopback:
/// the modules above (Cache, Sync, Analytics) rely on exactly this and nothing more.
@Suite("HTTPTransport contract against nginx", .serialized)
final class HTTPTransportContractTests {
    let nginx: NginxServer
    static let text = String(repeating: "a line of text to compress well\n", count: 200)

    init() throws {
        nginx = try NginxServer(files: [
            "fresh/a.txt": "alpha", "gzip/g.txt": Self.text, "slow/big.txt": String(repeating: "x", count: 400_000),
        ])
    }

    deinit { nginx.stop() }

    /// Runs `body` with a transport of `kind`, shut down after.
    func with<T>(
        _ kind: TransportKind, timeout: Duration = .seconds(10), maximumBodyBytes: Int = 64 << 20,
        _ body: (any HTTPTransport) async throws -> T
    ) async throws -> T {
        let transport = kind.make(
            timeout: timeout, connectTimeout: .seconds(2), retryRefusedConnections: false,
            maximumBodyBytes: maximumBodyBytes)
        do {
            let result = try await body(transport)
            try await transport.shutdown()
            return result
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    @Test(
        "a GET answers the status, the body's bytes and the headers with lower-cased names",
        arguments: TransportKind.allCases)
    func getAnswersStatusBodyAndHeaders(_ kind: TransportKind) async throws {
        let response = try await with(kind) {
            try await $0.send(HTTPTransportRequest(method: "get", url: nginx.url("/fresh/a.txt")))
        }
        #expect(response.status == 200)
        #expect(response.body == Array("alpha".utf8))
        #expect(response.header("Cache-Control") == "max-age=60")
        #expect(response.headers.contains { $0.name == "etag" })
        #expect(response.headers.allSatisfy { $0.name == $0.name.lowercased() })
        #expect(await nginx.requests(for: "/fresh/a.txt").first?.hasPrefix("GET ") == true)
    }

    @Test("a request after shutdown fails with an error, never a trap", arguments: TransportKind.allCases)
    func aRequestAfterShutdownFails(_ kind: TransportKind) async throws {
        let transport = kind.make(timeout: .seconds(10), connectTimeout: .seconds(2), retryRefusedConnections: false)
        let first = try await transport.send(HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/a.txt")))
        #expect(first.status == 200)
        try await transport.shutdown()
        // A late request (a background revalidation after an app shut its cache down) reached FoundationNetworking's
        // invalidated session and trapped the process; found by the hostile-header test of `make fuzz`'s findings.
        await #expect(throws: (any Error).self) {
            _ = try await transport.send(HTTPTransportRequest(method: "GET", url: self.nginx.url("/fresh/a.txt")))
        }
    }

    @Test("a 404 and a 405 are responses, not errors", arguments: TransportKind.allCases)
    func errorStatusesAreResponses(_ kind: TransportKind) async throws {
        let (missing, post) = try await with(kind) { transport in
            let missing = try await transport.send(
                HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/none.txt")))
            let post = try await transport.send(
                HTTPTransportRequest(
                    method: "POST", url: nginx.url("/fresh/a.txt"), headers: [HTTPHeader("Content-Type", "text/plain")],
                    body: Array("a body".utf8)))
            return (missing, post)
        }
        #expect(missing.status == 404)
        #expect(post.status == 405)
        #expect(await nginx.requests(for: "/fresh/a.txt").first?.hasPrefix("POST /fresh/a.txt 405") == true)
    }

    @Test(
        "request headers reach the server: a conditional GET gets nginx's 304, handed back as it is",
        arguments: TransportKind.allCases)
    func conditionalRequestsGetTheir304(_ kind: TransportKind) async throws {
        let notModified = try await with(kind) { transport in
            let first = try await transport.send(HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/a.txt")))
            let etag = try #require(first.header("etag"))
            return try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: nginx.url("/fresh/a.txt"), headers: [HTTPHeader("If-None-Match", etag)]))
        }
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        let log = await nginx.requests(for: "/fresh/a.txt", expected: 2)
        #expect(log.last?.contains(" 304 ") == true)
    }

    @Test(
        "a compressed answer reaches the caller as the bytes it stands for, without a stale Content-Encoding",
        arguments: TransportKind.allCases)
    func compressedAnswersAreTheirBytes(_ kind: TransportKind) async throws {
        let response = try await with(kind) {
            try await $0.send(HTTPTransportRequest(method: "GET", url: nginx.url("/gzip/g.txt")))
        }
        #expect(response.status == 200)
        #expect(response.body == Array(Self.text.utf8))
        #expect(response.header("content-encoding") == nil)
        if let length = response.header("content-length") { #expect(Int(length) == response.body.count) }
    }

    @Test(
        "a caller's own Accept-Encoding: gzip gets the body decoded exactly once",
        arguments: TransportKind.allCases)
    func askedForGzipIsDecodedOnce(_ kind: TransportKind) async throws {
        let response = try await with(kind) {
            try await $0.send(
                HTTPTransportRequest(
                    method: "GET", url: nginx.url("/gzip/g.txt"), headers: [HTTPHeader("Accept-Encoding", "gzip")]))
        }
        #expect(response.status == 200)
        #expect(response.body == Array(Self.text.utf8))
        #expect(response.header("content-encoding") == nil)
        if let length = response.header("content-length") { #expect(Int(length) == response.body.count) }
    }

    @Test("a refused connection is .unreachable, at once", arguments: TransportKind.allCases)
    func refusedConnectionsAreUnreachable(_ kind: TransportKind) async throws {
        let port = try LoopbackPort.free()
        await #expect {
            try await self.with(kind) {
                try await $0.send(HTTPTransportRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
            }
        } throws: { error in
            (error as? HTTPTransportError)?.code == .unreachable
        }
    }

    @Test("a URL that is not http(s) is .invalidRequest, sent nowhere", arguments: TransportKind.allCases)
    func badURLsAreInvalidRequests(_ kind: TransportKind) async throws {
        for url in ["not a url", "ftp://127.0.0.1/file", "/relative/path"] {
            await #expect {
                try await self.with(kind) { try await $0.send(HTTPTransportRequest(method: "GET", url: url)) }
            } throws: { error in
                (error as? HTTPTransportError)?.code == .invalidRequest
            }
        }
    }

    @Test("a body over the transport's limit is .tooLarge", arguments: TransportKind.allCases)
    func oversizedBodiesAreTooLarge(_ kind: TransportKind) async throws {
        await #expect {
            let status = try await self.with(kind, maximumBodyBytes: 1000) {
                try await $0.send(HTTPTransportRequest(method: "GET", url: self.nginx.url("/gzip/g.txt"))).status
            }
            Issue.record("the large body answered \(status)")
        } throws: { error in
            (error as? HTTPTransportError)?.code == .tooLarge
        }
    }

    @Test("a request slower than its own timeout is .timedOut", arguments: TransportKind.allCases)
    func slowRequestsTimeOut(_ kind: TransportKind) async throws {
        // 400 kB at nginx's 1 MB/s takes 0.4 s; the request allows 0.1 s.
        await #expect {
            let status = try await self.with(kind) {
                try await $0.send(
                    HTTPTransportRequest(
                        method: "GET", url: self.nginx.url("/slow/big.txt"), timeout: .milliseconds(100))
                ).status
            }
            Issue.record("the slow request answered \(status) within its timeout")
        } throws: { error in
            (error as? HTTPTransportError)?.code == .timedOut
        }
    }

    @Test("the errors say what failed and what to do (LocalizedError for apps)")
    func errorsDescribeThemselves() {
        let error = HTTPTransportError(.unreachable, "cannot reach http://127.0.0.1:1", hint: "check the server")
        #expect(error.description == "cannot reach http://127.0.0.1:1 (hint: check the server)")
        #expect(error.code.description == "unreachable")
    }
}

extension HTTPTransportContractTests {
    @Test("a URLSession transport's shutdown() leaves a session the caller gave usable")
    func aCallersSessionOutlivesTheTransport() async throws {
        let session = URLSession(configuration: .ephemeral)
        let first = URLSessionTransport(session: session)
        #expect(try await first.send(HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/a.txt"))).status == 200)
        try await first.shutdown()
        let second = URLSessionTransport(session: session)
        #expect(
            try await second.send(HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/a.txt"))).status == 200)
        session.invalidateAndCancel()
    }

    @Test("an AsyncHTTPClient transport released without shutdown() (a throw skipped it) shuts its client down")
    func aTransportDroppedWithoutShutdownDoesNotTrap() async throws {
        var transport: AsyncHTTPClientTransport? = AsyncHTTPClientTransport()
        let response = try await transport?.send(HTTPTransportRequest(method: "GET", url: nginx.url("/fresh/a.txt")))
        #expect(response?.status == 200)
        transport = nil  // AsyncHTTPClient asserts in its deinit when a running client is released
        #expect(transport == nil)
    }

    @Test(
        "a caller's AsyncHTTPClient, decompressing or not (clientDecompresses says which): the body is decoded once",
        arguments: [true, false])
    func aClientThatDecompressesDecodesOnce(_ clientDecompresses: Bool) async throws {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = clientDecompresses ? .enabled(limit: .none) : .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let transport = AsyncHTTPClientTransport(client: client, clientDecompresses: clientDecompresses)
        let answer: HTTPTransportResponse
        do {
            answer = try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: nginx.url("/gzip/g.txt"), headers: [HTTPHeader("Accept-Encoding", "gzip")]))
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(answer.body == Array(Self.text.utf8))
        #expect(answer.header("content-encoding") == nil)
    }
}
