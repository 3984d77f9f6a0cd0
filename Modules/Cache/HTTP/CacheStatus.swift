/// What the cache did for one response, in the vocabulary of the `Cache-Status` header (RFC 9211).
public enum CacheStatus: String, Sendable, Hashable, Codable {
    /// Served from the cache, fresh (or within the policy's age), without asking the origin.
    case hit
    /// Nothing usable was stored: the origin answered (and the answer was stored if it may be).
    case miss
    /// A stale stored response was served (stale-while-revalidate, stale-if-error, or `cache-only`).
    case stale
    /// A stale stored response was revalidated: the origin said 304 Not Modified and the stored body was served.
    case revalidated
    /// The cache was not used: a method it does not cache, a never-cache rule or `no-store`.
    case bypass

    /// The `Cache-Status` header's value for it, e.g. `Suite; fwd=stale; fwd-status=304` for ``revalidated``.
    package var headerValue: String {
        switch self {
        case .hit: "Suite; hit"
        case .miss: "Suite; fwd=uri-miss"
        case .stale: "Suite; hit; detail=stale"
        case .revalidated: "Suite; fwd=stale; fwd-status=304"
        case .bypass: "Suite; fwd=bypass"
        }
    }
}
