/// A manager seen through one event type, so call sites use leading-dot syntax:
/// `analytics.log(.messageDeleted(index: i, read: r))`.
///
/// ```swift
/// let analytics = manager.logger(for: AppEvent.self)
/// analytics.log(.loginFailed(reason: "wrong_password"))
/// ```
public struct AnalyticsLogger<Event: AnalyticsEvent>: Sendable {
    /// The manager the events go to.
    public let manager: AnalyticsManager

    /// Creates a logger over `manager`.
    public init(_ manager: AnalyticsManager) {
        self.manager = manager
    }

    /// Records `event` (see ``AnalyticsManager/log(_:)``).
    public func log(_ event: Event) {
        manager.log(event)
    }
}

extension AnalyticsManager {
    /// A logger for events of type `type`, so call sites can write `.eventName(…)`.
    public func logger<Event: AnalyticsEvent>(for type: Event.Type) -> AnalyticsLogger<Event> {
        AnalyticsLogger(self)
    }
}
