import Foundation

/// A session as the queue file keeps it between launches.
struct AnalyticsSession: Sendable, Hashable, Codable {
    /// The id on the session's records.
    var id: UUID
    /// When its first event was logged.
    var startedAt: Date
    /// When its last event was logged.
    var lastActivityAt: Date
    /// The events logged in it (session events not counted).
    var events: Int
}

/// Decides, event by event on the background writer, whether an event continues the current session or starts a new
/// one (see ``AnalyticsSessionPolicy``).
struct AnalyticsSessionTracker {
    /// Why a session ended.
    enum EndReason: String {
        case timeout, reset
    }

    /// The session now, nil before the first event (or after a reset or an opt-out).
    private(set) var current: AnalyticsSession?
    /// Seconds of inactivity after which the next event starts a new session.
    let timeout: Double
    /// The id of the next session started (``AnalyticsConfiguration/sessionID``), used once.
    private var nextID: UUID?

    init(current: AnalyticsSession?, timeout: Double, firstID: UUID?) {
        self.current = current
        self.timeout = timeout
        nextID = firstID
    }

    /// Counts an event logged at `date`: returns the session it ended (its last event was more than ``timeout``
    /// before) and the session it started, if any. `makeID` makes the id of a new session.
    mutating func activity(
        at date: Date, makeID: () -> UUID
    ) -> (ended: AnalyticsSession?, started: AnalyticsSession?) {
        if var session = current, date.timeIntervalSince(session.lastActivityAt) <= timeout {
            session.lastActivityAt = max(session.lastActivityAt, date)
            session.events += 1
            current = session
            return (nil, nil)
        }
        let ended = current
        let started = AnalyticsSession(id: nextID ?? makeID(), startedAt: date, lastActivityAt: date, events: 1)
        nextID = nil
        current = started
        return (ended, started)
    }

    /// Ends the current session (a reset): the next event starts a new one.
    mutating func end() -> AnalyticsSession? {
        defer { current = nil }
        return current
    }
}
