/// One header field: a lower-cased name and its value.
public struct HTTPHeader: Sendable, Hashable, Codable {
    /// The name, lower-cased.
    public var name: String
    /// The value, as received.
    public var value: String

    /// Creates a header; the name is lower-cased.
    public init(_ name: String, _ value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}

/// One request as a module sends it through an ``HTTPTransport``.
public struct HTTPTransportRequest: Sendable, Hashable {
    /// The method, upper-cased.
    public var method: String
    /// The absolute http(s) URL.
    public var url: String
    /// The request headers.
    public var headers: [HTTPHeader]
    /// The body, if any.
    public var body: [UInt8]?
    /// How long the request may take, whole; `nil` leaves the transport's own limit.
    public var timeout: Duration?

    /// Creates a request.
    public init(
        method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8]? = nil, timeout: Duration? = nil
    ) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first value of the header `name` (any case), if present.
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }
}

/// One response as the server sent it.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers (names lower-cased, in order).
    public var headers: [HTTPHeader]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (any case), if present.
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }
}

/// The role of an HTTP client under Cache, Sync and Analytics: send one request, return the whole response.
///
/// Built in: `URLSessionTransport` (module `SuiteHTTPURLSession`: Foundation's URLSession, FoundationNetworking on
/// Linux), the default of every library module, so an app's build has no SwiftNIO. Servers and the `suite` command
/// use `AsyncHTTPClientTransport` from the separate `SuiteHTTPNIO` product. An app may bring its own (a URLSession
/// with its own delegate, a test double):
///
/// ```swift
/// struct Recording: HTTPTransport {
///     func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
///         HTTPTransportResponse(status: 204, headers: [], body: [])
///     }
/// }
/// ```
///
/// A transport answers every status the server sent (a 404 or 500 is a response, not an error) and throws an
/// ``HTTPTransportError`` only when no response came: the server was unreachable, the request timed out, the body
/// was too large or the URL was not one it can send to.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the server's response, whatever its status.
    ///
    /// - Throws: ``HTTPTransportError`` when no response came.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse

    /// Releases the transport's connections; calling it again does nothing. The default does nothing.
    func shutdown() async throws
}

extension HTTPTransport {
    /// Does nothing: a transport without resources of its own needs no shutdown.
    public func shutdown() async throws {}
}
