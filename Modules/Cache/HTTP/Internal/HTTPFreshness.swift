package import Foundation

/// How long a stored response is fresh and how old it is (RFC 9111 §4.2), from its headers and the times it was
/// requested and received.
package struct HTTPFreshness: Sendable, Hashable {
    /// The freshness lifetime in seconds: `s-maxage` (shared caches), `max-age`, `Expires` − `Date`, or for a
    /// response with `Last-Modified` and no explicit lifetime a tenth of its age then (at most a day); 0 otherwise.
    package var lifetime: TimeInterval
    /// Whether the lifetime came from the response itself rather than the heuristic.
    package var isExplicit: Bool
    /// The response's age when it was received, in seconds: its `Age` header (not the lag of its `Date` behind our
    /// clock, which is only meaningful between synchronised clocks).
    package var initialAge: TimeInterval

    /// Computes freshness for `headers` received at `responseTime` (`shared`: the cache serves several users).
    package init(headers: [CacheHeader], responseTime: Date, shared: Bool = false) {
        let control = CacheControl(headers.filter { $0.name == "cache-control" }.map(\.value))
        // Parsed only where a rule below needs the origin's clock.
        var date: Date? { headers.first { $0.name == "date" }.flatMap { HTTPDate.parse($0.value) } }
        if shared, let seconds = control.sharedMaxAge {
            (lifetime, isExplicit) = (TimeInterval(seconds), true)
        } else if let seconds = control.maxAge {
            (lifetime, isExplicit) = (TimeInterval(seconds), true)
        } else if let expires = headers.first(where: { $0.name == "expires" }) {
            let expiry = HTTPDate.parse(expires.value)
            lifetime = expiry.map { max(0, $0.timeIntervalSince(date ?? responseTime)) } ?? 0
            isExplicit = true
        } else if let modified = headers.first(where: { $0.name == "last-modified" }).flatMap({
            HTTPDate.parse($0.value)
        }) {
            lifetime = min(86_400, max(0, (date ?? responseTime).timeIntervalSince(modified) / 10))
            isExplicit = false
        } else {
            (lifetime, isExplicit) = (0, false)
        }
        // The `Age` header only: RFC 9111's apparent age (our clock minus the origin's `Date`) assumes synchronised
        // clocks, and an app's device clock is often minutes off; `Expires − Date` uses the origin's clock alone.
        // Delta-seconds as for Cache-Control: `1e300`, `inf` or `-5` are no age, and a huge one counts as 2^31.
        initialAge =
            headers.first { $0.name == "age" }.flatMap { CacheControl.deltaSeconds($0.value.trimmingWhitespace()) }
            .map(TimeInterval.init) ?? 0
    }
}
