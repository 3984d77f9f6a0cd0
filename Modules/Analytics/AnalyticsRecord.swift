public import Foundation

/// An event as engines receive it: the event's name and (privacy-filtered) parameters, enriched by the manager.
///
/// ``id`` is a UUID version 7 (time-ordered) and the idempotency key: a record may be delivered more than once after a
/// crash or a failed delivery, and a receiver deduplicates by it.
public struct AnalyticsRecord: Sendable, Hashable, Codable {
    /// The event's unique id, a UUID v7; receivers deduplicate by it.
    public var id: UUID
    /// The event's name.
    public var name: String
    /// The event's parameters after the privacy policy (kept, hashed or dropped per key).
    public var parameters: [String: String]
    /// When the event was logged, from the manager's `SuiteCore/WallClock`.
    public var timestamp: Date
    /// The session the event belongs to.
    public var sessionID: UUID
    /// Configured context, such as `app_version`.
    public var context: [String: String]
    /// The sampling rate in `(0, 1]` this event was kept at: scale a count back with `1 / sampleRate`.
    public var sampleRate: Double

    /// Creates a record.
    public init(
        id: UUID, name: String, parameters: [String: String], timestamp: Date, sessionID: UUID,
        context: [String: String] = [:], sampleRate: Double = 1
    ) {
        self.id = id
        self.name = name
        self.parameters = parameters
        self.timestamp = timestamp
        self.sessionID = sessionID
        self.context = context
        self.sampleRate = sampleRate
    }
}
