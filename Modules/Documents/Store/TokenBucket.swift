/// A token bucket as a plain value: instants are durations since any fixed origin, so it is tested with explicit
/// instants and no clock. Tokens may go below zero: a taken token that is not there yet is a reservation, and its
/// holder waits until the bucket has refilled to it — queries get their tokens in the order they asked.
struct TokenBucket: Sendable, Hashable {
    /// Tokens added per second.
    let perSecond: Double
    /// The most tokens the bucket holds.
    let capacity: Double
    /// Tokens now (negative: reserved ahead).
    private(set) var tokens: Double
    /// The instant `tokens` was computed at.
    private(set) var updated: Duration

    /// A full bucket at `now`.
    init(perSecond: Double, burst: Int, now: Duration) {
        self.perSecond = perSecond
        self.capacity = Double(max(1, burst))
        self.tokens = capacity
        self.updated = now
    }

    /// Takes one token at `now`. Returns how long its taker waits before using it (zero when it was there), or `nil`
    /// — taking nothing — when that wait would exceed `maximumWait` (`.zero`: take only a token that is there now;
    /// `nil`: no bound).
    mutating func take(at now: Duration, maximumWait: Duration?) -> Duration? {
        refill(at: now)
        let after = tokens - 1
        let wait = after >= 0 ? Duration.zero : Self.duration(seconds: -after / perSecond)
        if let maximumWait, wait > maximumWait { return nil }
        tokens = after
        return wait
    }

    /// Returns a token taken by ``take(at:maximumWait:)`` and not used (its taker was cancelled while waiting).
    mutating func giveBack(at now: Duration) {
        refill(at: now)
        tokens = min(capacity, tokens + 1)
    }

    /// Tokens available at `now` without taking any (negative: reserved ahead).
    func available(at now: Duration) -> Double {
        var copy = self
        copy.refill(at: now)
        return copy.tokens
    }

    private mutating func refill(at now: Duration) {
        guard now > updated else { return }
        tokens = min(capacity, tokens + Self.seconds(now - updated) * perSecond)
        updated = now
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds < 1e12 else { return .seconds(1_000_000_000_000) }
        return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
    }
}
