import SuiteCore

/// How a request uses the cache.
public enum CachePolicy: Sendable, Hashable {
    /// HTTP's own rules (RFC 9111): serve fresh responses, revalidate stale ones, honour `Cache-Control`. The default.
    case http
    /// Always ask the origin; store the answer if it may be stored.
    case networkOnly
    /// Answer from the cache only, fresh or stale; nothing stored fails with ``CacheError/Code/notCached``.
    case cacheOnly
    /// Answer from the cache when the stored response is at most `maxAge` seconds old (`nil`: any age), whatever its
    /// HTTP freshness; else ask the origin.
    case cacheFirst(maxAge: Int?)
    /// The stored response at once (flagged `.cached`), then the origin's (flagged `.fresh`): seed 003's flow,
    /// through ``CachedHTTPClient/responses(for:)``. Through ``CachedHTTPClient/send(_:)`` it behaves as ``http``.
    case cacheThenNetwork
    /// RFC 5861: a stale response up to `seconds` past its freshness is served at once while it is refreshed behind.
    case staleWhileRevalidate(seconds: Int)
    /// RFC 5861: a stale response up to `seconds` past its freshness is served when the origin fails (an error, or a
    /// 5xx status).
    case staleIfError(seconds: Int)

    /// The policy named `text`: `http`, `network-only`, `cache-only`, `cache-first`, `cache-then-network`,
    /// `stale-while-revalidate`, `stale-if-error` (the last two take `seconds`, `cache-first` `maxAge`).
    package init(parsing text: String, seconds: Int? = nil) throws {
        switch text.lowercased() {
        case "http": self = .http
        case "network-only": self = .networkOnly
        case "cache-only": self = .cacheOnly
        case "cache-first": self = .cacheFirst(maxAge: seconds)
        case "cache-then-network": self = .cacheThenNetwork
        case "stale-while-revalidate": self = .staleWhileRevalidate(seconds: seconds ?? 60)
        case "stale-if-error": self = .staleIfError(seconds: seconds ?? 86_400)
        default:
            throw CacheError(
                .invalidInput, "unknown cache policy '\(text)'",
                hint: Suggestion.didYouMean(text.lowercased(), among: Self.names, what: "policies"))
        }
    }

    /// Every policy's name, as ``init(parsing:seconds:)`` reads them.
    package static let names = [
        "http", "network-only", "cache-only", "cache-first", "cache-then-network", "stale-while-revalidate",
        "stale-if-error",
    ]
}
