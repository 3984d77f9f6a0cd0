/// What a manager did with the events logged to it since it was created.
public struct AnalyticsStatistics: Sendable, Hashable {
    /// Calls to `log` while collecting.
    public var logged = 0
    /// Records written to the persisted queue.
    public var persisted = 0
    /// Events refused by validation, per reason.
    public var rejectedByReason: [AnalyticsRejection.Reason: Int] = [:]
    /// Events left out by sampling.
    public var sampledOut = 0
    /// Events dropped because the in-memory buffer was full.
    public var droppedBufferFull = 0
    /// Events logged (or buffered) while collection was off.
    public var droppedOptedOut = 0
    /// Events logged after ``AnalyticsManager/shutdown()``.
    public var droppedAfterShutdown = 0
    /// Records their engine confirmed.
    public var delivered = 0
    /// Records their engine rejected for good.
    public var engineRejected = 0
    /// Failed delivery attempts (per record).
    public var deliveryFailures = 0

    /// Events refused by validation, all reasons.
    public var rejected: Int { rejectedByReason.values.reduce(0, +) }

    /// Creates empty statistics.
    package init() {}
}
