public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import SuiteHTTP
import Synchronization

/// `HTTPTransport` over swift-server's AsyncHTTPClient: pooled keep-alive connections, HTTP/1.1 and HTTP/2, no
/// cache of its own. For servers and the `suite` command; an app uses `URLSessionTransport`, which brings no SwiftNIO.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// defer { Task { try await transport.shutdown() } }
/// let sync = try HTTPSyncTransport(baseURL: "http://127.0.0.1:8080", token: token, transport: transport)
/// ```
///
/// The client is the caller's (shut it down when done) or, with
/// ``init(timeout:connectTimeout:retryRefusedConnections:maximumBodyBytes:)``, created here and shut down by
/// ``shutdown()``.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient in use.
    public let client: HTTPClient
    private let ownsClient: Bool
    private let isShutDown = Atomic<Bool>(false)
    /// How long a request may take, whole, unless it names its own `HTTPTransportRequest/timeout`.
    public let timeout: Duration
    /// The largest body read; a larger one fails the request.
    public let maximumBodyBytes: Int
    /// Whether the client decodes gzip and deflate itself (its `decompression` is on): the transport then only drops
    /// the `Content-Encoding` AsyncHTTPClient leaves; otherwise it decodes the body itself.
    public let clientDecompresses: Bool

    /// A transport over `client`, which the caller shuts down. Say `clientDecompresses: true` when the client's
    /// configuration has `decompression` on, so that a body is decoded once, by the client.
    public init(
        client: HTTPClient, timeout: Duration = .seconds(30), maximumBodyBytes: Int = 64 << 20,
        clientDecompresses: Bool = false
    ) {
        self.client = client
        self.ownsClient = false
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
        self.clientDecompresses = clientDecompresses
    }

    /// A transport over a client of its own (on the shared event loop group); call ``shutdown()`` when done.
    ///
    /// `connectTimeout` bounds how long an unreachable server takes to fail. AsyncHTTPClient retries a refused
    /// connection until then; with `retryRefusedConnections` off a refused connection fails at once (Sync's
    /// "offline now").
    public init(
        timeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5), retryRefusedConnections: Bool = true,
        maximumBodyBytes: Int = 64 << 20
    ) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = TimeAmount(connectTimeout)
        configuration.connectionPool.retryConnectionEstablishment = retryRefusedConnections
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.ownsClient = true
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
        self.clientDecompresses = false
    }

    /// Shuts the client down if this transport created it. Calling it again does nothing.
    public func shutdown() async throws {
        guard ownsClient, !isShutDown.exchange(true, ordering: .sequentiallyConsistent) else { return }
        try await client.shutdown()
    }

    /// A transport dropped without ``shutdown()`` (say, a `throw` skipped it) still shuts its own client down, in the
    /// background: AsyncHTTPClient traps when a client is released while running.
    deinit {
        if ownsClient, !isShutDown.exchange(true, ordering: .sequentiallyConsistent) {
            client.shutdown { _ in }
        }
    }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme), url.host != nil
        else {
            throw HTTPTransportError(
                .invalidRequest, "'\(request.url)' is not an absolute http(s) URL",
                hint: "e.g. https://example.com/path")
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let what = "\(request.method) \(request.url)"
        let limit = request.timeout ?? timeout
        let prepared = outgoing
        do {
            // AsyncHTTPClient's timeout ends at the response's head: the body's reading is bounded here, so that the
            // timeout is the whole request's, as URLSession's is.
            return try await withThrowingTaskGroup(of: HTTPTransportResponse?.self) { group in
                group.addTask { [client, maximumBodyBytes, clientDecompresses] in
                    let response = try await client.execute(prepared, timeout: TimeAmount(limit))
                    var body = try await response.body.collect(upTo: maximumBodyBytes)
                    let bytes = body.readBytes(length: body.readableBytes) ?? []
                    return try Self.decoded(
                        HTTPTransportResponse(
                            status: Int(response.status.code),
                            headers: response.headers.map { HTTPHeader($0.name, $0.value) }, body: bytes),
                        what: what, maximumBodyBytes: clientDecompresses ? nil : maximumBodyBytes)
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw HTTPClientError.deadlineExceeded
                }
                return response
            }
        } catch let error as NIOTooManyBytesError {
            throw HTTPTransportError(
                .tooLarge, "\(what) answered more than \(maximumBodyBytes) bytes",
                hint: "raise maximumBodyBytes if responses this large are expected", underlying: error)
        } catch let error as HTTPTransportError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Self.transportError(error, what: what, url: url)
        }
    }

    /// `response` with a gzip'd or deflated body decoded, once, as URLSession gives it: without its
    /// `Content-Encoding`, with its `Content-Length` corrected. `maximumBodyBytes` nil: the client decoded it already.
    private static func decoded(_ response: HTTPTransportResponse, what: String, maximumBodyBytes: Int?) throws
        -> HTTPTransportResponse
    {
        guard let header = response.header("content-encoding"), let coding = HTTPContentCoding(token: header) else {
            return response
        }
        var response = response
        if let maximumBodyBytes, !response.body.isEmpty {
            do {
                response.body = try HTTPCompression.decode(response.body, from: coding, maximumBytes: maximumBodyBytes)
            } catch {
                throw HTTPTransportError(
                    error.code == .tooLarge ? .tooLarge : .failed,
                    "\(what) answered a body that cannot be decoded: \(error.message)",
                    hint: error.code == .tooLarge ? "raise maximumBodyBytes if responses this large are expected" : nil,
                    underlying: error)
            }
        }
        response.headers.removeAll { $0.name == "content-encoding" }
        if let index = response.headers.firstIndex(where: { $0.name == "content-length" }) {
            response.headers[index].value = String(response.body.count)
        }
        return response
    }

    /// AsyncHTTPClient's or NIO's error as an ``HTTPTransportError``.
    private static func transportError(_ error: any Error, what: String, url: URL) -> HTTPTransportError {
        let server = "\(url.scheme ?? "http")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
        if let client = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout].contains(client) {
                return HTTPTransportError(
                    .timedOut, "\(what) timed out", hint: "check that the server is up, or allow a longer timeout",
                    underlying: error)
            }
            if [.invalidURL, .emptyHost, .emptyScheme].contains(client) {
                return HTTPTransportError(.invalidRequest, "\(what): \(error)", underlying: error)
            }
        }
        let text = "\(error)"
        if text.contains("Connection refused") || text.contains("connectTimeout") || text.contains("NIOConnectionError")
        {
            let reason = text.contains("refused") ? "connection refused" : text
            return HTTPTransportError(
                .unreachable, "cannot reach \(server) (\(reason))",
                hint: "check that the server is running and reachable",
                underlying: error)
        }
        if text.lowercased().contains("timeout") || text.lowercased().contains("timed out") {
            return HTTPTransportError(
                .timedOut, "\(what) timed out", hint: "check that the server is up, or allow a longer timeout",
                underlying: error)
        }
        return HTTPTransportError(
            .failed, "\(what) failed: \(error)", hint: "check that the server is reachable", underlying: error)
    }
}

extension TimeAmount {
    /// `duration` in NIO's nanoseconds.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
