public import Foundation
import Synchronization

/// A source of wall-clock time, injected wherever a timestamp is taken so that tests can control it.
public protocol WallClock: Sendable {
    /// The current date.
    var now: Date { get }
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public var now: Date { Date() }
}

/// A clock that only moves when told to; for tests of expiry, timestamps and reports.
public final class ManualWallClock: WallClock {
    private let current: Mutex<Date>

    /// Creates a clock standing at `date`.
    public init(_ date: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(date)
    }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward (or backward, with a negative interval).
    public func advance(by interval: TimeInterval) {
        current.withLock { $0 += interval }
    }

    /// Sets the clock to `date`.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
