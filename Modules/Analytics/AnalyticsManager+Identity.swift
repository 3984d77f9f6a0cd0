public import Foundation
import SuiteCore
import Synchronization

extension AnalyticsManager {
    /// The current identity: the anonymous id, and the user id and traits of the last ``identify(userID:traits:)``.
    public var identity: AnalyticsIdentity { inbox.state.withLock { $0.identity } }

    /// The current session: the one of the last event processed, or at launch the stored one the next event would
    /// continue; nil before the first event, after ``reset()`` or ``optOut()``.
    ///
    /// The background writer assigns sessions, so right after `log` this may still name the session before it.
    public var sessionID: UUID? { inbox.state.withLock { $0.sessionID } }

    /// Names the user: `userID` and `traits` are put on every record logged afterwards (not on earlier ones), and an
    /// `identify` event is recorded, as Segment's `identify` does. Both are persisted with the next write
    /// (``persist()`` waits for it) and hold after a relaunch, until ``reset()`` or the next call.
    ///
    /// ```swift
    /// try analytics.identify(userID: "u_4821", traits: ["plan": "pro", "email": email])  // email hashed by the policy
    /// ```
    ///
    /// `traits` replace the previous ones and go through the ``AnalyticsConfiguration/privacy`` policy as event
    /// parameters do, before anything keeps them: a hashed trait is stored and sent hashed, a dropped one never leaves
    /// this call. A nil `userID` keeps the user anonymous (traits on the anonymous id).
    ///
    /// - Throws: ``AnalyticsError`` `.invalidTraits` when the traits (after the policy) break the
    ///   ``AnalyticsConfiguration/limits`` for parameters; nothing changes then.
    public func identify(userID: String?, traits: [String: String] = [:]) throws(AnalyticsError) {
        let filtered = configuration.privacy.apply(to: traits)
        if let rejection = configuration.limits.rejection(name: Self.identifyEventName, parameters: filtered) {
            throw AnalyticsError(
                .invalidTraits, "analytics traits are invalid: \(rejection.detail)",
                hint: "use at most \(configuration.limits.maximumParameterCount) traits named like event parameters, "
                    + "with values of at most \(configuration.limits.maximumValueLength) characters")
        }
        var identity = self.identity
        identity.userID = userID
        identity.traits = filtered
        inbox.setIdentity(identity)
        inbox.offer(PendingEvent(name: Self.identifyEventName, parameters: [:], timestamp: clock.now))
    }

    /// Forgets the user, as on sign-out: clears the user id and traits, makes a new anonymous id, and ends the session
    /// (`session_end` with `reason` `reset`), so the next event starts a new one. Records logged before the call keep
    /// the identity they were logged with. Persisted with the next write (``persist()`` waits for it).
    public func reset() {
        inbox.reset(to: AnalyticsIdentity(anonymousID: UUID()), at: clock.now)
    }

    /// The name of the event ``identify(userID:traits:)`` records.
    public static let identifyEventName = "identify"
}
