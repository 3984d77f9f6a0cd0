public import Cache
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// URLSession's shapes for `CachedHTTPClient`: `URL` and `URLRequest` in, `Data` and `HTTPURLResponse` out, so a
/// call through the cache reads like the `URLSession.data(for:)` it replaces.
///
/// ```swift
/// let client = CachedHTTPClient(cache: DataCache(store: try InMemoryCacheStore(byteLimit: 8 << 20)))
/// var request = URLRequest(url: URL(string: "https://api.example.com/users/42")!)
/// request.setValue("application/json", forHTTPHeaderField: "Accept")
/// let (data, response) = try await client.data(for: request)
/// let fromCache = response.value(forHTTPHeaderField: "Cache-Status")   // "Suite; hit" on a hit
/// ```
extension CachedHTTPClient {
    /// Sends `request` through the cache (with `policy`) and returns the body and the response, as URLSession does.
    ///
    /// - Throws: `CacheError` `.invalidInput` for a request without an http(s) URL; as `send(_:)` otherwise.
    public func data(
        for request: URLRequest, policy: CachePolicy = .http, scope: String? = nil, sensitive: Bool = false
    ) async throws -> (Data, HTTPURLResponse) {
        let response = try await send(try Request(request, policy: policy, scope: scope, sensitive: sensitive))
        guard let url = request.url, let http = response.httpURLResponse(for: url) else {
            throw CacheError(.invalidInput, "the response to \(request.url?.absoluteString ?? "a request") has no URL")
        }
        return (response.data, http)
    }

    /// Fetches `url` with `GET` through the cache.
    public func data(from url: URL, policy: CachePolicy = .http) async throws -> (Data, HTTPURLResponse) {
        try await data(for: URLRequest(url: url), policy: policy)
    }
}

extension CachedHTTPClient.Request {
    /// The request `urlRequest` makes: its method, URL, headers and body.
    ///
    /// - Throws: `CacheError` `.invalidInput` when it has no absolute http(s) URL.
    public init(_ urlRequest: URLRequest, policy: CachePolicy = .http, scope: String? = nil, sensitive: Bool = false)
        throws
    {
        guard let url = urlRequest.url, let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else {
            throw CacheError(
                .invalidInput, "'\(urlRequest.url?.absoluteString ?? "")' is not an absolute http(s) URL",
                hint: "give the URLRequest a URL such as https://api.example.com/items")
        }
        let headers = (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map {
            CacheHeader($0.key, $0.value)
        }
        self.init(
            method: urlRequest.httpMethod ?? "GET", url: url.absoluteString, headers: headers,
            body: urlRequest.httpBody.map { [UInt8]($0) }, policy: policy, scope: scope, sensitive: sensitive)
    }

    /// A request for `url` with `headers` and `body`.
    public init(
        url: URL, method: String = "GET", headers: [String: String] = [:], body: Data? = nil,
        policy: CachePolicy = .http, scope: String? = nil, sensitive: Bool = false
    ) {
        self.init(
            method: method, url: url.absoluteString,
            headers: headers.sorted { $0.key < $1.key }.map { CacheHeader($0.key, $0.value) },
            body: body.map { [UInt8]($0) }, policy: policy, scope: scope, sensitive: sensitive)
    }
}

extension CachedHTTPClient.Response {
    /// The body as `Data`.
    public var data: Data { Data(body) }

    /// The response as Foundation's `HTTPURLResponse` for `url`, with its headers (`Cache-Status` and `Age`
    /// included).
    public func httpURLResponse(for url: URL) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for header in headers {
            fields[header.name] = fields[header.name].map { $0 + ", " + header.value } ?? header.value
        }
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
