public import Foundation
public import SuiteHTTP
import Synchronization

/// An HTTP client that fetches through a ``DataCache`` with HTTP's caching rules (RFC 9111): keys by method, normalised
/// URL, `Vary` and an optional scope; freshness from `Cache-Control`, `Expires` and `Age`; conditional revalidation
/// with `If-None-Match` / `If-Modified-Since` (a 304 refreshes the stored headers and serves the stored body);
/// stale-while-revalidate and stale-if-error (RFC 5861); request coalescing (concurrent identical requests make one
/// upstream request); and a ``CacheStatus`` for every response.
///
/// ```swift
/// let client = CachedHTTPClient(cache: DataCache(store: try InMemoryCacheStore(byteLimit: 8 << 20)))
/// let first = try await client.send(.init(url: "https://api.example.com/users?page=1"))   // .miss
/// let again = try await client.send(.init(url: "https://api.example.com/users?page=1"))   // .hit while fresh
/// let (data, response) = try await client.data(for: URLRequest(url: URL(string: "https://api.example.com/me")!))
/// ```
///
/// Requests reach the origin through an `HTTPTransport`: URLSession by default (`URLSessionTransport`), or
/// `AsyncHTTPClientTransport` from the `SuiteHTTPNIO` product on a server.
public final class CachedHTTPClient: Sendable {
    /// The cache responses are kept in.
    public let cache: DataCache
    /// How requests reach the origin.
    public let transport: any HTTPTransport
    /// Never-cache patterns, lifetimes, tags and transient query items.
    public let rules: CacheRules
    /// Whether the cache serves several users (then `private` responses are stored only under a scope, and
    /// `s-maxage` applies). An app's own cache is not shared.
    public let isShared: Bool
    /// How long a stale response with validators is kept for revalidation past its freshness, in seconds.
    public let staleRetention: TimeInterval
    /// A check of a stored response before it is served (seed 003's `verifyCacheContent`): `false` discards it.
    public let verify: (@Sendable (Response) -> Bool)?
    let inFlight = Mutex<[String: Task<Fetched, any Error>]>([:])
    let upstreamCount = Atomic<Int>(0)

    /// A request.
    public struct Request: Sendable, Hashable {
        /// The method (only `GET` responses are cached; an unsafe method invalidates the URL's entries).
        public var method: String
        /// The absolute URL.
        public var url: String
        /// The request headers.
        public var headers: [CacheHeader]
        /// The body, if any.
        public var body: [UInt8]?
        /// How this request uses the cache.
        public var policy: CachePolicy
        /// Whose response this is, for responses that differ by user (see ``CacheKey/scope``).
        public var scope: String?
        /// Keep the response in the cache's protected store only (user information, tokens): encrypted at rest, never
        /// in a plain tier. A rule can say so for a URL pattern (``CacheRules/Rule/sensitive``).
        public var sensitive: Bool

        /// Creates a request.
        public init(
            method: String = "GET", url: String, headers: [CacheHeader] = [], body: [UInt8]? = nil,
            policy: CachePolicy = .http, scope: String? = nil, sensitive: Bool = false
        ) {
            self.method = method.uppercased()
            self.url = url
            self.headers = headers
            self.body = body
            self.policy = policy
            self.scope = scope
            self.sensitive = sensitive
        }
    }

    /// A response, from the origin or the cache.
    public struct Response: Sendable, Hashable {
        /// The status code.
        public var status: Int
        /// The headers, with `Age` for a stored response and `Cache-Status`.
        public var headers: [CacheHeader]
        /// The body.
        public var body: [UInt8]
        /// What the cache did.
        public var cacheStatus: CacheStatus
        /// The response's age in seconds (0 for a response straight from the origin).
        public var age: Int

        /// The first header named `name` (any case).
        public func header(_ name: String) -> String? {
            let name = name.lowercased()
            return headers.first { $0.name == name }?.value
        }
    }

    /// Creates a client; `transport` defaults to a `URLSessionTransport` of its own.
    public init(
        cache: DataCache, transport: any HTTPTransport = DefaultHTTPTransport.make(), rules: CacheRules = CacheRules(),
        isShared: Bool = false,
        staleRetention: TimeInterval = 7 * 86_400, verify: (@Sendable (Response) -> Bool)? = nil
    ) {
        self.cache = cache
        self.transport = transport
        self.rules = rules
        self.isShared = isShared
        self.staleRetention = staleRetention
        self.verify = verify
    }

    /// Requests sent to the origin by this client (for tests and statistics: coalesced requests count once).
    public var upstreamRequests: Int { upstreamCount.load(ordering: .relaxed) }

    /// Sends `request` through the cache as its policy says. An origin error is thrown unless a stale response may
    /// be served instead (stale-if-error).
    public func send(_ request: Request) async throws -> Response {
        let url = try NormalizedURL(request.url, removing: rules.transientQueryItems)
        let key = CacheKey(method: request.method, url: url, scope: request.scope)
        let matching = rules.matching(url)
        var request = request
        request.sensitive = request.sensitive || matching.contains(where: \.sensitive)
        if request.sensitive, cache.protectedStore == nil {
            throw CacheError(
                .key, "\(request.url) is sensitive, and this cache has no protected store to keep it in",
                hint: "give the DataCache a ProtectedCacheStore, or drop `sensitive` for this request")
        }
        let requestControl = CacheControl(request.headers.filter { $0.name == "cache-control" }.map(\.value))
        guard request.method == "GET" else { return try await sendUnsafe(request, key: key) }
        if matching.contains(where: \.neverCache) || requestControl.noStore {
            return try await bypass(request)
        }
        let stored = await lookup(key, request: request)
        let now = cache.now
        switch request.policy {
        case .networkOnly:
            return try await fetch(request, key: key, stored: nil, rules: matching).response
        case .cacheOnly:
            guard let stored else {
                cache.recordMiss(key.primary)
                throw CacheError(
                    .notCached, "nothing is cached for \(key.primary)", hint: "use another policy, e.g. --policy http")
            }
            return serve(stored, now: now, status: isFresh(stored, now: now) ? .hit : .stale)
        case .cacheFirst(let maxAge):
            if let stored, maxAge.map({ age(of: stored, now: now) <= $0 }) ?? true {
                return serve(stored, now: now, status: .hit)
            }
        case .http, .cacheThenNetwork, .staleWhileRevalidate, .staleIfError:
            break
        }
        guard let stored else {
            if requestControl.onlyIfCached {
                cache.recordMiss(key.primary)
                return Response(
                    status: 504, headers: [CacheHeader("cache-status", CacheStatus.miss.headerValue)], body: [],
                    cacheStatus: .miss, age: 0)
            }
            return try await fetch(request, key: key, stored: nil, rules: matching).response
        }
        let storedControl = CacheControl(stored.metadata.headers.filter { $0.name == "cache-control" }.map(\.value))
        let currentAge = age(of: stored, now: now)
        if isFresh(stored, now: now), !requestControl.noCache, !storedControl.noCache,
            requestControl.maxAge.map({ currentAge <= $0 }) ?? true
        {
            return serve(stored, now: now, status: .hit)
        }
        cache.recordStale(stored)
        let staleFor = Double(now - (stored.metadata.freshUntil ?? stored.metadata.storedAt)) / 1000
        if !storedControl.mustRevalidate, !storedControl.noCache, !requestControl.noCache,
            let window = staleWindow(request.policy, storedControl.staleWhileRevalidate, swr: true),
            staleFor <= Double(window)
        {
            // Served at once; refreshed behind, once however many ask meanwhile.
            let refresh = { [self] in _ = try? await self.fetch(request, key: key, stored: stored, rules: matching) }
            Task { await refresh() }
            return serve(stored, now: now, status: .stale)
        }
        do {
            let fetched = try await fetch(request, key: key, stored: stored, rules: matching)
            if fetched.response.status >= 500, let fallback = staleIfError(stored, request, storedControl, staleFor) {
                return fallback
            }
            return fetched.response
        } catch {
            if let fallback = staleIfError(stored, request, storedControl, staleFor) { return fallback }
            throw error
        }
    }

    /// The stored response (fresh or stale) at once, flagged `.cached`, then the origin's, flagged `.fresh`, or the
    /// origin's error: seed 003's flow. With nothing stored, only the origin's answer comes.
    public func responses(for request: Request) -> AsyncThrowingStream<FlaggedResponse, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var cached = request
                    cached.policy = .cacheOnly
                    if let stored = try? await send(cached) {
                        continuation.yield(FlaggedResponse(response: stored, origin: .cached))
                    }
                    var fresh = request
                    fresh.policy = .networkOnly
                    continuation.yield(FlaggedResponse(response: try await send(fresh), origin: .fresh))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A response of ``responses(for:)``, flagged by where it came from.
    public struct FlaggedResponse: Sendable, Hashable {
        /// Where a response came from.
        public enum Origin: String, Sendable, Hashable { case cached, fresh }
        /// The response.
        public var response: Response
        /// `.cached` (from the cache, possibly stale) or `.fresh` (from the origin).
        public var origin: Origin
    }

    // MARK: - Steps

    /// A stored response for `key` as requested (following the stored `Vary`), checked by ``verify``.
    func lookup(_ key: CacheKey, request: Request) async -> CacheEntry? {
        let sensitive = request.sensitive
        var entry = await cache.entry(forKey: key.primary, record: false, sensitive: sensitive)
        if entry == nil, let index = await cache.entry(forKey: key.varyIndex, record: false, sensitive: sensitive) {
            let names = String(decoding: index.value, as: UTF8.self).split(separator: ",").map(String.init)
            entry = await cache.entry(
                forKey: key.varying(by: names, requestHeaders: request.headers), record: false, sensitive: sensitive)
        }
        if let stored = entry, let verify, !verify(response(stored, now: cache.now, status: .hit)) {
            _ = try? await cache.removeValue(forKey: stored.key, sensitive: sensitive)
            return nil
        }
        return entry
    }

    func isFresh(_ entry: CacheEntry, now: Int64) -> Bool {
        now < (entry.metadata.freshUntil ?? entry.metadata.expiresAt ?? .max)
    }

    /// The age in seconds: the age it had when received (kept as its `Age` header) plus the time stored.
    func age(of entry: CacheEntry, now: Int64) -> Int {
        let initial = entry.metadata.header("age").flatMap(CacheControl.deltaSeconds) ?? 0
        return initial + Int(max(0, now - entry.metadata.storedAt) / 1000)
    }

    func serve(_ entry: CacheEntry, now: Int64, status: CacheStatus) -> Response {
        if status == .hit || status == .stale { cache.recordHit(entry) }
        return response(entry, now: now, status: status)
    }

    func response(_ entry: CacheEntry, now: Int64, status: CacheStatus) -> Response {
        let age = age(of: entry, now: now)
        var headers = entry.metadata.headers.filter { $0.name != "age" && $0.name != "cache-status" }
        headers.append(CacheHeader("age", "\(age)"))
        headers.append(CacheHeader("cache-status", status.headerValue))
        return Response(
            status: entry.metadata.status ?? 200, headers: headers, body: entry.value, cacheStatus: status, age: age)
    }

    func staleWindow(_ policy: CachePolicy, _ fromResponse: Int?, swr: Bool) -> Int? {
        switch policy {
        case .staleWhileRevalidate(let seconds) where swr: return max(seconds, fromResponse ?? 0)
        case .staleIfError(let seconds) where !swr: return max(seconds, fromResponse ?? 0)
        default: return fromResponse
        }
    }

    func staleIfError(_ stored: CacheEntry, _ request: Request, _ control: CacheControl, _ staleFor: Double)
        -> Response?
    {
        guard !control.mustRevalidate, let window = staleWindow(request.policy, control.staleIfError, swr: false),
            staleFor <= Double(window)
        else { return nil }
        return serve(stored, now: cache.now, status: .stale)
    }

    /// A request the cache does not keep: sent as it is.
    func bypass(_ request: Request) async throws -> Response {
        let answer = try await upstream(
            OriginRequest(method: request.method, url: request.url, headers: request.headers, body: request.body)
        )
        return Response(
            status: answer.status,
            headers: answer.headers + [CacheHeader("cache-status", CacheStatus.bypass.headerValue)],
            body: answer.body, cacheStatus: .bypass, age: 0)
    }

    /// An unsafe method: sent as it is; a success invalidates what is stored for its URL (RFC 9111 §4.4).
    func sendUnsafe(_ request: Request, key: CacheKey) async throws -> Response {
        let response = try await bypass(request)
        if request.method != "HEAD", (200..<400).contains(response.status) {
            let get = CacheKey(method: "GET", url: key.url, scope: key.scope)
            for sensitive in cache.protectedStore == nil ? [false] : [false, true] {
                _ = try? await cache.removeValue(forKey: get.primary, sensitive: sensitive)
                _ = try? await cache.removeValues(withPrefix: get.primary + " ", sensitive: sensitive)
            }
        }
        return response
    }

    func upstream(_ request: OriginRequest) async throws -> OriginResponse {
        upstreamCount.add(1, ordering: .relaxed)
        let outgoing = HTTPTransportRequest(
            method: request.method, url: request.url, headers: request.headers.map { HTTPHeader($0.name, $0.value) },
            body: request.body)
        let answer: HTTPTransportResponse
        do { answer = try await transport.send(outgoing) } catch let error as HTTPTransportError {
            throw CacheError(
                .network, error.message, hint: error.hint ?? "check that the server is reachable", underlying: error)
        }
        return OriginResponse(
            status: answer.status, headers: answer.headers.map { CacheHeader($0.name, $0.value) }, body: answer.body)
    }
}

/// A request to the origin, in the cache's header type.
struct OriginRequest {
    var method: String
    var url: String
    var headers: [CacheHeader]
    var body: [UInt8]?
}

/// The origin's response, in the cache's header type.
struct OriginResponse {
    var status: Int
    var headers: [CacheHeader]
    var body: [UInt8]
}
