import Synchronization

/// Enforces a ``QueryRateLimit``: one token per query execution, from a ``TokenBucket``; waits on the injected clock.
final class QueryRateLimiter: Sendable {
    /// What one ``acquire(_:)`` did, for the cost counters.
    enum Admission: Sendable, Equatable {
        /// A token was there.
        case immediate
        /// The query waited this long for its token.
        case waited(Duration)
    }

    let limit: QueryRateLimit
    private let bucket: Mutex<TokenBucket>
    private let now: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let waitingCount = Atomic<Int>(0)

    /// A limiter on `now` (a duration since any fixed origin) that waits with `sleep`.
    init(
        _ limit: QueryRateLimit, now: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.limit = limit
        self.now = now
        self.sleep = sleep
        self.bucket = Mutex(TokenBucket(perSecond: limit.perSecond, burst: limit.burst, now: now()))
    }

    /// A limiter on the continuous clock.
    convenience init(_ limit: QueryRateLimit) {
        let origin = ContinuousClock.now
        self.init(
            limit, now: { ContinuousClock.now - origin },
            sleep: { duration in try await Task.sleep(for: duration, clock: .continuous) })
    }

    /// Queries waiting for their token now.
    var waiting: Int { waitingCount.load(ordering: .relaxed) }

    /// Takes a token for one query execution, waiting for it when `behavior` is ``QueryRateLimit/Behavior/wait``.
    /// Throws ``DocumentsError/Code-swift.struct/rateLimited`` when no token is there and the caller does not wait
    /// (or would wait past ``QueryRateLimit/maximumWait``), and `CancellationError` when cancelled while waiting (the
    /// token goes back).
    func acquire(_ behavior: QueryRateLimit.Behavior) async throws -> Admission {
        let maximumWait = behavior == .fail ? Duration.zero : limit.maximumWait
        let instant = now()
        guard let wait = bucket.withLock({ $0.take(at: instant, maximumWait: maximumWait) }) else {
            throw rejection(behavior)
        }
        guard wait > .zero else { return .immediate }
        waitingCount.add(1, ordering: .relaxed)
        defer { waitingCount.subtract(1, ordering: .relaxed) }
        do {
            try await sleep(wait)
            try Task.checkCancellation()
        } catch {
            let instant = now()
            bucket.withLock { $0.giveBack(at: instant) }
            throw error
        }
        return .waited(wait)
    }

    private func rejection(_ behavior: QueryRateLimit.Behavior) -> DocumentsError {
        let rate = "\(limit.perSecond) per second, burst \(limit.burst)"
        if behavior == .fail {
            return DocumentsError(
                .rateLimited, "query rate limit reached (\(rate)); the query did not run",
                hint: "retry later, or let the query wait for its turn (whenRateLimited: .wait)")
        }
        return DocumentsError(
            .rateLimited,
            "query rate limit reached (\(rate)): the wait would exceed the maximum of \(limit.maximumWait ?? .zero)",
            hint: "retry later, raise the rate limit, or raise its maximum wait")
    }
}
