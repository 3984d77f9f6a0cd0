/// One request as the cache sends it to the origin.
public struct HTTPTransportRequest: Sendable, Hashable {
    /// The method, upper-cased.
    public var method: String
    /// The absolute URL, as the caller gave it (transient query items included: the origin needs them).
    public var url: String
    /// The request headers.
    public var headers: [CacheHeader]
    /// The body, if any.
    public var body: [UInt8]?

    /// Creates a request.
    public init(method: String, url: String, headers: [CacheHeader] = [], body: [UInt8]? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One response as the origin sent it.
public struct HTTPTransportResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers (names lower-cased, in order).
    public var headers: [CacheHeader]
    /// The body.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [CacheHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The role of the HTTP client under ``CachedHTTPClient``: send a request, return the whole response. Built in:
/// ``AsyncHTTPClientTransport`` (swift-server's AsyncHTTPClient, pooled connections). Tests and apps may bring their
/// own (URLSession on Apple platforms).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the origin's response; throws when no response came (connection, timeout).
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}
