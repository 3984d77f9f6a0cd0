public import AsyncHTTPClient
import Foundation
public import NIOCore
import NIOHTTP1
import Synchronization

/// ``HTTPTransport`` over swift-server's AsyncHTTPClient: pooled keep-alive connections, HTTP/1.1 and HTTP/2, no
/// cache of its own. The client is the caller's (shut it down when done) or, with `init(timeout:maximumBodyBytes:)`,
/// created here and shut down by ``shutdown()``.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient in use.
    public let client: HTTPClient
    private let ownsClient: Bool
    private let isShutDown = Atomic<Bool>(false)
    /// How long a request may take, whole.
    public let timeout: TimeAmount
    /// The largest body read; a larger one fails the request.
    public let maximumBodyBytes: Int

    /// A transport over `client`, which the caller shuts down.
    public init(client: HTTPClient, timeout: TimeAmount = .seconds(30), maximumBodyBytes: Int = 64 << 20) {
        self.client = client
        self.ownsClient = false
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// A transport over a client of its own (on the shared event loop group); call ``shutdown()`` when done.
    /// `connectTimeout` bounds how long an unreachable origin takes to fail (AsyncHTTPClient retries a refused
    /// connection until then).
    public init(
        timeout: TimeAmount = .seconds(30), connectTimeout: TimeAmount = .seconds(5), maximumBodyBytes: Int = 64 << 20
    ) {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = connectTimeout
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.ownsClient = true
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
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
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, timeout: timeout)
        } catch {
            throw CacheError(
                .network, "\(request.method) \(request.url) failed: \(error)",
                hint: "check that the server is reachable", underlying: error)
        }
        var body = try await response.body.collect(upTo: maximumBodyBytes)
        let bytes = body.readBytes(length: body.readableBytes) ?? []
        return HTTPTransportResponse(
            status: Int(response.status.code), headers: response.headers.map { CacheHeader($0.name, $0.value) },
            body: bytes)
    }
}
