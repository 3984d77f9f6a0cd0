/// How long a failed delivery waits before its next attempt: exponential backoff with jitter, capped.
///
/// The delay before attempt `n + 1` after `n` failures is `min(maximumDelay, initialDelay * 2^(n-1))`, scaled by a
/// jitter factor in `[0.5, 1)` drawn from ``random`` (injectable so tests are deterministic).
public struct AnalyticsRetryPolicy: Sendable {
    /// The delay after the first failure, in seconds.
    public var initialDelay: Double
    /// The longest delay, in seconds.
    public var maximumDelay: Double
    /// After this many failed attempts a record is marked failed for good (kept in the queue with its last error).
    public var maximumAttempts: Int
    /// A source of numbers in `[0, 1)` for the jitter.
    public var random: @Sendable () -> Double

    /// Creates a policy: 1 s doubling up to 5 minutes, 10 attempts, random jitter.
    public init(
        initialDelay: Double = 1, maximumDelay: Double = 300, maximumAttempts: Int = 10,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.random = random
    }

    /// The delay in seconds after `attempts` failed attempts (1 for the first failure).
    package func delay(afterAttempts attempts: Int) -> Double {
        let exponent = Double(max(0, min(attempts - 1, 62)))
        let base = min(maximumDelay, initialDelay * pow2(exponent))
        let jitter = 0.5 + 0.5 * min(max(random(), 0), 1)
        return base * jitter
    }

    private func pow2(_ exponent: Double) -> Double {
        var result = 1.0
        for _ in 0..<Int(exponent) { result *= 2 }
        return result
    }

    /// Checks the delays are non-negative and at least one attempt is allowed.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the value.
    package func validate() throws(AnalyticsError) {
        if !(initialDelay >= 0) || !(maximumDelay >= initialDelay) || maximumAttempts < 1 {
            throw AnalyticsError(
                .invalidConfiguration,
                "analytics retry policy is out of range (initialDelay \(initialDelay), maximumDelay \(maximumDelay), "
                    + "maximumAttempts \(maximumAttempts))",
                hint: "use initialDelay >= 0, maximumDelay >= initialDelay and maximumAttempts >= 1")
        }
    }
}
