/// A snapshot of the persisted queue.
public struct AnalyticsQueueStatus: Sendable, Hashable, Codable {
    /// How many failed records share one reason.
    public struct FailureReason: Sendable, Hashable, Codable {
        /// The last error or the engine's rejection reason.
        public var reason: String
        /// Records failed for it.
        public var count: Int

        /// Creates a line.
        package init(reason: String, count: Int) {
            self.reason = reason
            self.count = count
        }
    }

    /// Records waiting for delivery (including those waiting to retry), not in flight.
    public var pending: Int
    /// Records leased by a flusher and not yet settled.
    public var inFlight: Int
    /// Records (pending or in flight) that have failed at least once.
    public var retrying: Int
    /// Records rejected by their engine or out of attempts: kept, never resent.
    public var failed: Int
    /// The failed records grouped by reason, most frequent first.
    public var failureReasons: [FailureReason]

    /// Creates a snapshot.
    package init(pending: Int, inFlight: Int, retrying: Int, failed: Int, failureReasons: [FailureReason]) {
        self.pending = pending
        self.inFlight = inFlight
        self.retrying = retrying
        self.failed = failed
        self.failureReasons = failureReasons
    }
}
