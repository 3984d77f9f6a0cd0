import Synchronization

extension AnalyticsManager {
    /// The user's stored decision (``AnalyticsConsent/undetermined`` until one is made).
    public var consent: AnalyticsConsent { inbox.state.withLock { $0.consent } }

    /// Whether events are being collected: the consent, or ``AnalyticsConfiguration/collectionEnabled`` while it is
    /// undetermined.
    public var isCollecting: Bool { inbox.state.withLock { $0.collecting } }

    /// Stores the user's decision, on disk when this returns, so it holds after a relaunch.
    ///
    /// When the decision stops collection, what is buffered is dropped at once and events logged afterwards are
    /// counted as ``AnalyticsStatistics/droppedOptedOut``. ``AnalyticsConsent/denied`` also purges the queue (pending
    /// and failed records alike: nothing collected before is sent, as Segment drops its queue) and forgets the session;
    /// the identity is kept (call ``reset()`` to forget the user too).
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the decision cannot be stored (collection follows it in memory all
    ///   the same); `.shutdown` after ``shutdown()``.
    public func setConsent(_ consent: AnalyticsConsent) async throws {
        let collecting = consent.allowsCollection(byDefault: configuration.collectionEnabled)
        let dropped = inbox.state.withLock { state -> Int in
            state.consent = consent
            state.collecting = collecting
            guard !collecting else { return 0 }
            // Drops the buffered events; a reset marker stays, so the identity change still ends the session.
            let before = state.events.count
            state.events.removeAll { if case .event = $0.kind { true } else { false } }
            return before - state.events.count
        }
        inbox.update { $0.droppedOptedOut += dropped }
        try await send { .consent(consent, $0) }
    }

    /// Stops collecting, for good until ``optIn()``: the same as `setConsent(.denied)` (the queue is purged).
    public func optOut() async throws {
        try await setConsent(.denied)
    }

    /// Resumes collecting after ``optOut()``: the same as `setConsent(.granted)`.
    public func optIn() async throws {
        try await setConsent(.granted)
    }
}
