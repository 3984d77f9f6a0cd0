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
    /// The session the event belongs to (see ``AnalyticsSessionPolicy``).
    public var sessionID: UUID
    /// The automatic context (``AnalyticsAutomaticContext``) merged with the configured one, such as `app_version`.
    public var context: [String: String]
    /// The sampling rate in `(0, 1]` this event was kept at: scale a count back with `1 / sampleRate`.
    public var sampleRate: Double
    /// The user id given to ``AnalyticsManager/identify(userID:traits:)``, nil before it or after a reset.
    public var userID: String?
    /// The install's anonymous id (``AnalyticsIdentity/anonymousID``); nil only in records written before it existed.
    public var anonymousID: UUID?
    /// The user's traits after the privacy policy, as of the last ``AnalyticsManager/identify(userID:traits:)``.
    public var traits: [String: String]

    /// Creates a record.
    @_spi(Engine) public init(
        id: UUID, name: String, parameters: [String: String], timestamp: Date, sessionID: UUID,
        context: [String: String] = [:], sampleRate: Double = 1, userID: String? = nil, anonymousID: UUID? = nil,
        traits: [String: String] = [:]
    ) {
        self.id = id
        self.name = name
        self.parameters = parameters
        self.timestamp = timestamp
        self.sessionID = sessionID
        self.context = context
        self.sampleRate = sampleRate
        self.userID = userID
        self.anonymousID = anonymousID
        self.traits = traits
    }

    /// Decodes a record; `userID`, `anonymousID` and `traits` may be missing (records queued by an earlier version).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        parameters = try container.decode([String: String].self, forKey: .parameters)
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        sessionID = try container.decode(UUID.self, forKey: .sessionID)
        context = try container.decode([String: String].self, forKey: .context)
        sampleRate = try container.decode(Double.self, forKey: .sampleRate)
        userID = try container.decodeIfPresent(String.self, forKey: .userID)
        anonymousID = try container.decodeIfPresent(UUID.self, forKey: .anonymousID)
        traits = try container.decodeIfPresent([String: String].self, forKey: .traits) ?? [:]
    }
}
