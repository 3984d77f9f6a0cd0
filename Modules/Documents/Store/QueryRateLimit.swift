/// A store's query-rate limit (``DocumentStore/Options/queryRateLimit``): at most ``perSecond`` query executions a
/// second on average, with bursts of up to ``burst`` — a token bucket. Fewer executions are fewer billed reads: the
/// throttling of queries that cuts a Firestore bill.
///
/// It limits one-shot queries: ``QueryConvertible/getDocuments()``, ``QueryConvertible/explain()`` and aggregations. Listeners, single
/// document reads and writes are not limited. Calls that share another's execution (``QueryCoalescing``) take no
/// token.
///
/// Over the limit, a query waits for its token (``Behavior/wait``, the default) or fails at once with
/// ``DocumentsError/Code-swift.struct/rateLimited`` (``Behavior/fail``); a caller chooses per call with
/// ``QueryConvertible/getDocuments(whenRateLimited:)``. A wait that would exceed ``maximumWait`` fails the same way. Queries
/// get their tokens in the order they asked; a cancelled wait gives its token back.
///
/// ```swift
/// var options = DocumentStore.Options()
/// options.queryRateLimit = QueryRateLimit(perSecond: 20, burst: 40)
/// ```
public struct QueryRateLimit: Sendable, Hashable {
    /// What a query does when no token is available.
    public enum Behavior: String, Sendable, Hashable, CaseIterable {
        /// Wait for the next token (up to ``QueryRateLimit/maximumWait``).
        case wait
        /// Fail at once with ``DocumentsError/Code-swift.struct/rateLimited``.
        case fail
    }

    /// Tokens added per second (fractions allowed: `0.5` is one query every two seconds). Must be positive.
    public var perSecond: Double
    /// The most tokens the bucket holds: how many queries may run back to back after a quiet period. At least 1.
    public var burst: Int
    /// What a query does over the limit when the call does not say.
    public var whenLimited: Behavior
    /// The longest a query waits for its token; a longer wait fails at once with
    /// ``DocumentsError/Code-swift.struct/rateLimited``. `nil`: no bound.
    public var maximumWait: Duration?

    /// Creates a limit. A `perSecond` that is not a positive number means no limit; `burst` is at least 1.
    public init(perSecond: Double, burst: Int, whenLimited: Behavior = .wait, maximumWait: Duration? = nil) {
        self.perSecond = perSecond
        self.burst = burst
        self.whenLimited = whenLimited
        self.maximumWait = maximumWait
    }

    /// Whether the limit can be enforced: a positive, finite rate.
    var isEffective: Bool { perSecond.isFinite && perSecond > 0 }
}
