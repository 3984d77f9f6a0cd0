/// The directives of a `Cache-Control` header (RFC 9111 §5.2) that the cache acts on.
public struct CacheControl: Sendable, Hashable {
    /// `max-age=N`: fresh for N seconds (response), or the oldest response accepted (request).
    public var maxAge: Int?
    /// `s-maxage=N`: `max-age` for shared caches.
    public var sharedMaxAge: Int?
    /// `no-store`: never stored.
    public var noStore = false
    /// `no-cache`: stored, but revalidated with the origin before every use.
    public var noCache = false
    /// `private`: for one user; a shared cache stores it only under a scope.
    public var isPrivate = false
    /// `public`.
    public var isPublic = false
    /// `must-revalidate`: never served stale.
    public var mustRevalidate = false
    /// `stale-while-revalidate=N` (RFC 5861): served stale for N seconds past freshness while refreshed behind.
    public var staleWhileRevalidate: Int?
    /// `stale-if-error=N` (RFC 5861): served stale for N seconds past freshness when the origin fails.
    public var staleIfError: Int?
    /// `only-if-cached` (request): answer from the cache or not at all.
    public var onlyIfCached = false
    /// `immutable`: never revalidated while fresh.
    public var immutable = false

    /// No directive.
    public init() {}

    /// Parses the comma-separated directives of every `Cache-Control` value given; unknown directives are ignored
    /// and a malformed number leaves its directive unset (RFC 9111: a cache treats an invalid `max-age` as stale).
    public init(_ values: [String]) {
        for value in values {
            for part in value.split(separator: ",") {
                // Empty pieces kept: a directive that is only `=` has an empty name, not no name.
                let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = pieces[0].trimmingCharacters(in: " \t").lowercased()
                let argument = pieces.count > 1 ? pieces[1].trimmingCharacters(in: " \t\"") : nil
                let seconds = argument.flatMap(Self.deltaSeconds)
                switch name {
                case "max-age": maxAge = seconds ?? 0
                case "s-maxage": sharedMaxAge = seconds ?? 0
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                case "stale-while-revalidate": staleWhileRevalidate = seconds
                case "stale-if-error": staleIfError = seconds
                case "only-if-cached": onlyIfCached = true
                case "immutable": immutable = true
                default: continue
                }
            }
        }
    }
}

extension CacheControl {
    /// The largest number of seconds a directive or an `Age` header counts: RFC 9111 §1.2.2 has a cache take a larger
    /// value as 2^31, so that no later arithmetic on it (milliseconds, sums with the clock) can overflow.
    static let maximumDeltaSeconds = 2_147_483_648

    /// RFC 9111's delta-seconds: digits only (no sign, no fraction, no exponent), capped at ``maximumDeltaSeconds``;
    /// nil for anything else.
    static func deltaSeconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return min(Int(text) ?? maximumDeltaSeconds, maximumDeltaSeconds)
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var slice = self
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
