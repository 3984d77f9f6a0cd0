/// When a session ends, and whether its start and end are recorded as events.
///
/// A session is a run of activity: it starts with the first event logged, every event logged within ``timeout`` of
/// the previous one continues it, and the first event after a longer pause starts a new one (a new
/// ``AnalyticsRecord/sessionID``). The session is persisted beside the queue, so an app relaunched within the timeout
/// continues its session, as Firebase Analytics does.
///
/// ```swift
/// var configuration = AnalyticsConfiguration()
/// configuration.sessions = AnalyticsSessionPolicy(timeout: .seconds(10 * 60))
/// ```
///
/// With ``recordsEvents`` on, a new session is recorded as a `session_start` event (before the event that started
/// it), and an ended one as `session_end` — when the next event arrives after the timeout, or on
/// ``AnalyticsManager/reset()`` — with the session's last activity as its timestamp and parameters `duration_ms`
/// (first to last activity), `events` (the events logged in it) and `reason` (`timeout` or `reset`). Session events are
/// never sampled out.
public struct AnalyticsSessionPolicy: Sendable, Hashable {
    /// The inactivity after which the next event starts a new session; 30 minutes by default.
    public var timeout: Duration
    /// Whether `session_start` and `session_end` events are recorded.
    public var recordsEvents: Bool

    /// The name of the event recorded when a session starts.
    public static let startEventName = "session_start"
    /// The name of the event recorded when a session ends.
    public static let endEventName = "session_end"

    /// Creates a policy.
    public init(timeout: Duration = .seconds(30 * 60), recordsEvents: Bool = true) {
        self.timeout = timeout
        self.recordsEvents = recordsEvents
    }

    /// Checks the timeout.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` when the timeout is not positive.
    package func validate() throws(AnalyticsError) {
        if timeout <= .zero {
            throw AnalyticsError(
                .invalidConfiguration, "analytics session timeout is \(timeout); it must be positive",
                hint: "pass e.g. AnalyticsSessionPolicy(timeout: .seconds(30 * 60))")
        }
    }

    var timeoutSeconds: Double {
        let parts = timeout.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
