public import SuiteCore

/// What query coalescing and the query-rate limit did: executions and reads saved, queries delayed or refused. Part
/// of ``CostReport`` (``CostReport/queries``), persisted and summed with it; `suite docs stats` prints it.
public struct QueryThrottleCounts: Sendable, Hashable, Codable {
    /// Calls answered by another call's execution (or a reused result, ``QueryCoalescing/reuseWindow``): executions
    /// saved.
    public var coalesced: Int64
    /// The reads those calls would have been billed had each run on its own.
    public var readsSaved: Int64
    /// Queries that waited for a rate-limit token.
    public var throttled: Int64
    /// Their total wait, in microseconds.
    public var throttledWaitMicroseconds: Int64
    /// Queries refused by the rate limit (``DocumentsError/Code-swift.struct/rateLimited``).
    public var rejected: Int64

    /// Creates counts.
    public init(
        coalesced: Int64 = 0, readsSaved: Int64 = 0, throttled: Int64 = 0, throttledWaitMicroseconds: Int64 = 0,
        rejected: Int64 = 0
    ) {
        self.coalesced = coalesced
        self.readsSaved = readsSaved
        self.throttled = throttled
        self.throttledWaitMicroseconds = throttledWaitMicroseconds
        self.rejected = rejected
    }

    /// The total wait of throttled queries.
    public var throttledWait: Duration { .microseconds(throttledWaitMicroseconds) }

    /// Whether every count is zero.
    public var isZero: Bool {
        coalesced == 0 && readsSaved == 0 && throttled == 0 && throttledWaitMicroseconds == 0 && rejected == 0
    }

    /// Adds `other` to these counts.
    public mutating func add(_ other: QueryThrottleCounts) {
        coalesced += other.coalesced
        readsSaved += other.readsSaved
        throttled += other.throttled
        throttledWaitMicroseconds += other.throttledWaitMicroseconds
        rejected += other.rejected
    }

    /// The counts as JSON: `{"coalesced", "readsSaved", "throttled", "throttledWaitMicroseconds", "rejected"}`.
    public var json: JSONValue {
        .object([
            "coalesced": .int(coalesced), "readsSaved": .int(readsSaved), "throttled": .int(throttled),
            "throttledWaitMicroseconds": .int(throttledWaitMicroseconds), "rejected": .int(rejected),
        ])
    }

    init(json: JSONValue) {
        coalesced = json["coalesced"]?.intValue ?? 0
        readsSaved = json["readsSaved"]?.intValue ?? 0
        throttled = json["throttled"]?.intValue ?? 0
        throttledWaitMicroseconds = json["throttledWaitMicroseconds"]?.intValue ?? 0
        rejected = json["rejected"]?.intValue ?? 0
    }
}
