/// The user's decision about analytics, persisted beside the queue so it survives a relaunch.
///
/// ```swift
/// try await analytics.setConsent(.granted)   // the user tapped "Allow"
/// try await analytics.optOut()               // the same as setConsent(.denied)
/// ```
///
/// While ``undetermined``, ``AnalyticsConfiguration/collectionEnabled`` decides whether events are collected (set it to
/// false to collect nothing until the user answers).
public enum AnalyticsConsent: String, Sendable, Hashable, Codable, CaseIterable {
    /// No decision stored: ``AnalyticsConfiguration/collectionEnabled`` applies.
    case undetermined
    /// Collect and send events (``AnalyticsManager/optIn()``).
    case granted
    /// Collect nothing; the queue was purged when it was set (``AnalyticsManager/optOut()``).
    case denied

    /// Whether events are collected under this decision, given the configuration's default for ``undetermined``.
    package func allowsCollection(byDefault collectionEnabled: Bool) -> Bool {
        switch self {
        case .undetermined: collectionEnabled
        case .granted: true
        case .denied: false
        }
    }
}
