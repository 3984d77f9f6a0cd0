import Foundation
public import SuiteCore
public import SuiteHTTP

/// Sync with `suite serve` over HTTP: `POST /v1/sync/push`, `GET /v1/sync/changes`, `GET /v1/sync/snapshot`,
/// `GET /v1/docs/{path}`, with a bearer token. A refused connection or a timeout is ``SyncError/Code/offline`` (the
/// outbox keeps the writes).
///
/// ```swift
/// let transport = try HTTPSyncTransport(baseURL: "https://sync.example.com", token: token)   // URLSession
/// ```
///
/// Requests go through an `HTTPTransport`: a `URLSessionTransport` of its own by default, or the one given (a
/// server or the `suite` command passes `AsyncHTTPClientTransport` from the `SuiteHTTPNIO` product).
///
/// With `compression` on (the default) requests say `Accept-Encoding: gzip, deflate`, so that the server answers
/// pulls gzip'd (the transport decodes them), and a push body of ``compressionThreshold`` bytes or more goes gzip'd
/// with `Content-Encoding: gzip`.
public final class HTTPSyncTransport: SyncTransport {
    /// The server, e.g. `http://127.0.0.1:8080`.
    public let baseURL: String
    private let token: String
    /// How requests reach the server.
    public let http: any HTTPTransport
    private let timeout: Duration
    /// Whether answers are asked for gzip'd and large push bodies are sent gzip'd.
    public let compression: Bool
    /// The smallest push body sent gzip'd (below it the gain is a few bytes).
    public static let compressionThreshold = 1024

    /// A transport to `baseURL` with `token`, through `http` (a `URLSessionTransport` of its own when `nil`); call
    /// ``shutdown()`` when done. `timeout` bounds one request whole, so it must exceed the long poll's wait (30 s).
    /// `compression` off sends and asks for plain bodies only (a server that cannot read gzip'd ones).
    ///
    /// - Throws: ``SyncError`` `.invalidInput` when `baseURL` is not an http(s) URL.
    public init(
        baseURL: String, token: String, timeout: Duration = .seconds(40), http: (any HTTPTransport)? = nil,
        compression: Bool = true
    ) throws {
        guard let url = URL(string: baseURL), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw SyncError(.invalidInput, "'\(baseURL)' is not an http(s) URL", hint: "e.g. http://127.0.0.1:8080")
        }
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.timeout = timeout
        self.compression = compression
        self.http = http ?? DefaultHTTPTransport.make(timeout: timeout)
    }

    /// Closes the HTTP transport's connections.
    public func shutdown() async throws {
        try await http.shutdown()
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try SyncPushResponse(json: try await json("POST", "/v1/sync/push", body: Data(request.json.jsonString.utf8)))
    }

    public func changes(since: Int64, wait: Duration, limit: Int) async throws -> SyncChangesResponse {
        let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        return try SyncChangesResponse(
            json: try await json("GET", "/v1/sync/changes?since=\(since)&wait=\(seconds)&limit=\(limit)"))
    }

    public func snapshot(after: String?, limit: Int) async throws -> SyncSnapshotResponse {
        var query = "limit=\(limit)"
        if let after {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            query += "&after=" + (after.addingPercentEncoding(withAllowedCharacters: allowed) ?? after)
        }
        return try SyncSnapshotResponse(json: try await json("GET", "/v1/sync/snapshot?" + query))
    }

    public func document(_ path: String) async throws -> JSONValue? {
        let encoded = path.split(separator: "/").map {
            $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? String($0)
        }.joined(separator: "/")
        // Missing, or not readable by this user: either way the replica must not hold it.
        let json = try await optionalJSON("GET", "/v1/docs/" + encoded, body: nil, absentOn: [403, 404])
        // A `null` data is no document (`Optional.none`: a bare `nil` here would become `JSONValue.null`).
        guard let data = json?["data"], data != .null else { return Optional.none }
        return data
    }

    /// The JSON of a 2xx answer, read by `JSONValue`'s own parser (not Foundation's decoder, whose trial decoding of
    /// `JSONValue` throws several errors per value).
    private func json(_ method: String, _ path: String, body: Data? = nil) async throws -> JSONValue {
        guard let json = try await optionalJSON(method, path, body: body, absentOn: []) else {
            throw SyncError(.protocolError, "\(method) \(path): no answer")
        }
        return json
    }

    /// The JSON of a 2xx answer, or nil for a status in `absentOn`.
    private func optionalJSON(_ method: String, _ path: String, body: Data?, absentOn: Set<Int>) async throws
        -> JSONValue?
    {
        guard let data = try await send(method, path, body: body, absentOn: absentOn) else { return nil }
        do { return try JSONValue(parsing: data) } catch {
            throw SyncError(.protocolError, "\(method) \(path): the answer is not JSON: \(error)")
        }
    }

    /// The body of a 2xx answer, or nil for a status in `absentOn`; any other status is thrown as its ``SyncError``.
    private func send(_ method: String, _ path: String, body: Data?, absentOn: Set<Int>) async throws -> Data? {
        var headers = [HTTPHeader("Authorization", "Bearer \(token)")]
        if compression { headers.append(HTTPHeader("Accept-Encoding", "gzip, deflate")) }
        var bytes = body.map { [UInt8]($0) }
        if let plain = bytes {
            headers.append(HTTPHeader("Content-Type", "application/json"))
            if compression, plain.count >= Self.compressionThreshold, let gzipped = try? HTTPCompression.gzip(plain) {
                bytes = gzipped
                headers.append(HTTPHeader("Content-Encoding", "gzip"))
            }
        }
        let request = HTTPTransportRequest(
            method: method, url: baseURL + path, headers: headers, body: bytes, timeout: timeout)
        let response: HTTPTransportResponse
        do {
            response = try await http.send(request)
        } catch let error as HTTPTransportError {
            let reason =
                error.message.lowercased().contains("refused")
                ? "connection refused"
                : error.code == .unreachable ? "unreachable" : error.code == .timedOut ? "timed out" : error.message
            throw SyncError(
                .offline, "cannot reach \(baseURL) (\(reason))", hint: "the writes stay in the outbox until it answers",
                underlying: error)
        }
        let data = Data(response.body)
        if absentOn.contains(response.status) { return nil }
        switch response.status {
        case 200..<300: return data
        case 401, 403:
            throw SyncError(
                .unauthorized, "\(response.status) from \(baseURL): \(Self.message(data))",
                hint: "check the token (suite users token UID on the server)")
        case 410:
            throw SyncError(
                .resyncRequired, Self.message(data), hint: "SyncClient.pull resyncs by itself (GET /v1/sync/snapshot)")
        case 429:
            // The server's quota for this user: transient, like being offline; the outbox keeps the writes.
            let wait = response.header("Retry-After").map { " in \($0) s" } ?? " later"
            throw SyncError(
                .offline, "429 from \(baseURL): \(Self.message(data))",
                hint: "over the server's quota for this user; sync again\(wait)")
        case 502, 503, 504:
            throw SyncError(.offline, "\(response.status) from \(baseURL): \(Self.message(data))")
        default:
            throw SyncError(.protocolError, "\(response.status) \(method) \(path): \(Self.message(data))")
        }
    }

    private static func message(_ data: Data) -> String {
        let json = try? JSONValue(parsing: String(decoding: data, as: UTF8.self))
        return json?["error"]?["message"]?.stringValue ?? String(decoding: data.prefix(200), as: UTF8.self)
    }
}
