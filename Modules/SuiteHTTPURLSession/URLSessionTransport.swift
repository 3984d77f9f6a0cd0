public import Foundation
public import SuiteHTTP
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// `HTTPTransport` over Foundation's URLSession (FoundationNetworking on Linux): the default transport of Cache,
/// Sync and Analytics, so an app gets the HTTP stack it already uses and no SwiftNIO in its build.
///
/// ```swift
/// let transport = URLSessionTransport()
/// let response = try await transport.send(HTTPTransportRequest(method: "GET", url: "https://example.com/a.json"))
/// ```
///
/// The session it makes keeps no cache and no cookies of its own (Cache is the cache, Sync sends its own token).
/// URLSession decodes a gzip'd or deflated body by itself: the response then carries the decoded body without its
/// `Content-Encoding`, and with its `Content-Length` corrected, so what a caller stores is what it read.
public final class URLSessionTransport: HTTPTransport, DefaultHTTPTransportProvider {
    /// The session requests go through.
    public let session: URLSession
    /// How long a request may take, whole, unless the request names its own `HTTPTransportRequest.timeout`.
    public let timeout: Duration
    /// The largest body read; a larger one fails the request with `HTTPTransportError.Code.tooLarge`.
    public let maximumBodyBytes: Int

    /// Whether ``shutdown()`` invalidates the session: only one this transport made.
    private let ownsSession: Bool
    /// Set by ``shutdown()``: a request after it fails instead of reaching an invalidated session (which traps).
    private let isShutDown = Atomic<Bool>(false)

    /// A transport over `session` (the caller's: its delegate, proxy and TLS settings apply, and ``shutdown()`` leaves
    /// it as it is).
    public convenience init(session: URLSession, timeout: Duration = .seconds(30), maximumBodyBytes: Int = 64 << 20) {
        self.init(session: session, owned: false, timeout: timeout, maximumBodyBytes: maximumBodyBytes)
    }

    private init(session: URLSession, owned: Bool, timeout: Duration, maximumBodyBytes: Int) {
        self.session = session
        self.ownsSession = owned
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// A transport over a session of its own: ephemeral, no URL cache, no cookies (also a library module's default,
    /// through `DefaultHTTPTransport`).
    public convenience init(timeout: Duration = .seconds(30), maximumBodyBytes: Int = 64 << 20) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = Self.seconds(timeout)
        configuration.timeoutIntervalForResource = Self.seconds(timeout)
        self.init(
            session: URLSession(configuration: configuration), owned: true, timeout: timeout,
            maximumBodyBytes: maximumBodyBytes)
    }

    /// Cancels the tasks of the session this transport made and lets it go (the transport cannot be used after it); a
    /// session the caller gave is left as it is.
    public func shutdown() async throws {
        isShutDown.store(true, ordering: .sequentiallyConsistent)
        if ownsSession { session.invalidateAndCancel() }
    }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let outgoing = try urlRequest(request)
        // FoundationNetworking traps on a task of an invalidated session: a request that comes late (a background
        // revalidation, a retry) after shutdown fails as a request would.
        guard !(ownsSession && isShutDown.load(ordering: .sequentiallyConsistent)) else {
            throw HTTPTransportError(
                .failed, "\(request.method) \(request.url): the transport was shut down",
                hint: "make requests before shutdown(), or use a new transport")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: outgoing)
        } catch {
            throw Self.transportError(error, request)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPTransportError(.failed, "\(request.method) \(request.url) answered without an HTTP response")
        }
        guard data.count <= maximumBodyBytes else {
            throw HTTPTransportError(
                .tooLarge, "\(request.method) \(request.url) answered \(data.count) bytes, over \(maximumBodyBytes)",
                hint: "raise maximumBodyBytes if responses this large are expected")
        }
        return HTTPTransportResponse(
            status: http.statusCode, headers: Self.headers(of: http, bodyCount: data.count), body: [UInt8](data))
    }

    /// The URLRequest for `request`, or `HTTPTransportError.Code.invalidRequest` for a URL that is not http(s).
    private func urlRequest(_ request: HTTPTransportRequest) throws -> URLRequest {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
            ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw HTTPTransportError(
                .invalidRequest, "'\(request.url)' is not an absolute http(s) URL",
                hint: "e.g. https://example.com/path")
        }
        var outgoing = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        outgoing.httpMethod = request.method
        outgoing.timeoutInterval = Self.seconds(request.timeout ?? timeout)
        for header in request.headers { outgoing.addValue(header.value, forHTTPHeaderField: header.name) }
        if let body = request.body { outgoing.httpBody = Data(body) }
        return outgoing
    }

    /// The response's headers, names lower-cased and sorted (URLSession keeps no order); a body URLSession decoded
    /// loses its `Content-Encoding` and gets its own length.
    private static func headers(of response: HTTPURLResponse, bodyCount: Int) -> [HTTPHeader] {
        var headers: [HTTPHeader] = response.allHeaderFields.compactMap { name, value in
            guard let name = name as? String else { return nil }
            return HTTPHeader(name, "\(value)")
        }
        headers.sort { $0.name < $1.name }
        let decoded = headers.contains {
            $0.name == "content-encoding" && ["gzip", "x-gzip", "deflate", "br"].contains($0.value.lowercased())
        }
        if decoded {
            headers.removeAll { $0.name == "content-encoding" }
            if let index = headers.firstIndex(where: { $0.name == "content-length" }) {
                headers[index].value = String(bodyCount)
            }
        }
        return headers
    }

    /// URLSession's error as an `HTTPTransportError`; a cancelled task stays a `CancellationError`.
    private static func transportError(_ error: any Error, _ request: HTTPTransportRequest) -> any Error {
        let what = "\(request.method) \(request.url)"
        guard let urlError = error as? URLError else {
            return HTTPTransportError(.failed, "\(what) failed: \(error)", underlying: error)
        }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return HTTPTransportError(
                .timedOut, "\(what) timed out", hint: "check that the server is up, or allow a longer timeout",
                underlying: error)
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
            .networkConnectionLost, .internationalRoamingOff, .dataNotAllowed:
            return HTTPTransportError(
                .unreachable, "cannot reach \(url(request.url)) (\(urlError.localizedDescription))",
                hint: "check that the server is running and reachable", underlying: error)
        case .badURL, .unsupportedURL:
            return HTTPTransportError(.invalidRequest, "\(what): \(urlError.localizedDescription)", underlying: error)
        default:
            return HTTPTransportError(
                .failed, "\(what) failed: \(urlError.localizedDescription)", underlying: error)
        }
    }

    /// The scheme, host and port of `url`, for messages.
    private static func url(_ text: String) -> String {
        guard let components = URLComponents(string: text), let host = components.host else { return text }
        return "\(components.scheme ?? "http")://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
