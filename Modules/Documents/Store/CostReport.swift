public import SuiteCore

/// Billable operations, counted the way Firestore bills them.
public struct CostCounts: Sendable, Hashable, Codable {
    /// Document reads (a query costs the documents it returns, at least 1; an aggregation 1 per 1,000 index entries).
    public var reads: Int64
    /// Document writes (each set or update of one document, transforms included).
    public var writes: Int64
    /// Document deletes.
    public var deletes: Int64

    /// Creates counts.
    public init(reads: Int64 = 0, writes: Int64 = 0, deletes: Int64 = 0) {
        self.reads = reads
        self.writes = writes
        self.deletes = deletes
    }

    /// Whether every count is zero.
    public var isZero: Bool { reads == 0 && writes == 0 && deletes == 0 }

    /// Adds `other` to these counts.
    public mutating func add(_ other: CostCounts) {
        reads += other.reads
        writes += other.writes
        deletes += other.deletes
    }

    var json: JSONValue { .object(["reads": .int(reads), "writes": .int(writes), "deletes": .int(deletes)]) }

    init(json: JSONValue) {
        reads = json["reads"]?.intValue ?? 0
        writes = json["writes"]?.intValue ?? 0
        deletes = json["deletes"]?.intValue ?? 0
    }
}

/// Accumulated costs: totals, per collection id and per operation kind.
///
/// Counters persist in the engine's metadata, so the processes of a command-line session add up
/// (`suite docs stats`).
public struct CostReport: Sendable, Hashable, Codable {
    /// Everything.
    public var total: CostCounts
    /// Per collection id (`orders` for `users/u1/orders/o1`).
    public var byCollection: [String: CostCounts]
    /// Per operation kind (`get`, `query`, `aggregation`, `listen`, `set`, `update`, `delete`, `batch`,
    /// `transaction`).
    public var byKind: [String: CostCounts]
    /// What query coalescing and the query-rate limit saved and delayed (``QueryCoalescing``, ``QueryRateLimit``).
    public var queries: QueryThrottleCounts

    /// Creates a report.
    public init(
        total: CostCounts = CostCounts(), byCollection: [String: CostCounts] = [:], byKind: [String: CostCounts] = [:],
        queries: QueryThrottleCounts = QueryThrottleCounts()
    ) {
        self.total = total
        self.byCollection = byCollection
        self.byKind = byKind
        self.queries = queries
    }

    /// Whether nothing was counted.
    public var isEmpty: Bool { total.isZero && queries.isZero }

    /// Adds one operation's cost.
    mutating func add(kind: String, collection: String, _ counts: CostCounts) {
        total.add(counts)
        byCollection[collection, default: CostCounts()].add(counts)
        byKind[kind, default: CostCounts()].add(counts)
    }

    /// Adds another report.
    mutating func add(_ other: CostReport) {
        total.add(other.total)
        for (key, value) in other.byCollection { byCollection[key, default: CostCounts()].add(value) }
        for (key, value) in other.byKind { byKind[key, default: CostCounts()].add(value) }
        queries.add(other.queries)
    }

    /// The report as JSON: `{"total":{…},"byCollection":{…},"byKind":{…}}`, plus `"queries":{"coalesced",
    /// "readsSaved", "throttled", "throttledWaitMicroseconds", "rejected"}` once coalescing or the rate limit did
    /// something.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "total": total.json,
            "byCollection": .object(byCollection.mapValues(\.json)),
            "byKind": .object(byKind.mapValues(\.json)),
        ]
        if !queries.isZero { object["queries"] = queries.json }
        return .object(object)
    }

    /// Parses ``json``'s format; unknown or missing members count as zero.
    public init(json: JSONValue) {
        total = json["total"].map(CostCounts.init(json:)) ?? CostCounts()
        byCollection = (json["byCollection"]?.objectValue ?? [:]).mapValues(CostCounts.init(json:))
        byKind = (json["byKind"]?.objectValue ?? [:]).mapValues(CostCounts.init(json:))
        queries = json["queries"].map(QueryThrottleCounts.init(json:)) ?? QueryThrottleCounts()
    }

    private enum CodingKeys: String, CodingKey { case total, byCollection, byKind, queries }

    /// Decodes a report; `queries` may be missing (reports encoded before it existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        total = try container.decode(CostCounts.self, forKey: .total)
        byCollection = try container.decode([String: CostCounts].self, forKey: .byCollection)
        byKind = try container.decode([String: CostCounts].self, forKey: .byKind)
        queries = try container.decodeIfPresent(QueryThrottleCounts.self, forKey: .queries) ?? QueryThrottleCounts()
    }
}
