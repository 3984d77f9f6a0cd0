public import Foundation

/// Who the events are about: the install's anonymous id, and the user id and traits an app set with
/// ``AnalyticsManager/identify(userID:traits:)``. Persisted beside the queue; put on every record.
public struct AnalyticsIdentity: Sendable, Hashable, Codable {
    /// A random id (UUID version 4, so it tells nothing of when it was made) made once per install, and again by
    /// ``AnalyticsManager/reset()``.
    public var anonymousID: UUID
    /// The app's id for the signed-in user, nil when anonymous.
    public var userID: String?
    /// The user's traits after the privacy policy (kept, hashed or dropped per key, as event parameters are).
    public var traits: [String: String]

    /// Creates an identity.
    package init(anonymousID: UUID, userID: String? = nil, traits: [String: String] = [:]) {
        self.anonymousID = anonymousID
        self.userID = userID
        self.traits = traits
    }
}
