public import Foundation
import GRDB

/// One line of an analytics report: a key (an event name or a UTC day), how many records were stored, and that count
/// scaled back by each record's sampling rate.
public struct AnalyticsCount: Sendable, Hashable, Codable {
    /// The event name or the day (`yyyy-MM-dd`, UTC).
    public var key: String
    /// Records stored.
    public var count: Int
    /// The estimated number of events logged: the sum of `1 / sampleRate`.
    public var estimated: Double

    /// Creates a line.
    package init(key: String, count: Int, estimated: Double) {
        self.key = key
        self.count = count
        self.estimated = estimated
    }
}

extension SQLiteAnalyticsEngine {
    /// Records per event name since `date` (all when nil), most frequent first.
    public func countsByEvent(since date: Date? = nil) async throws -> [AnalyticsCount] {
        try await counts(groupedBy: "name", since: date, order: "count DESC, key")
    }

    /// Records per UTC day since `date` (all when nil), oldest day first.
    public func countsByDay(since date: Date? = nil) async throws -> [AnalyticsCount] {
        try await counts(groupedBy: "day", since: date, order: "key")
    }

    private func counts(groupedBy column: String, since date: Date?, order: String) async throws -> [AnalyticsCount] {
        try await fetchCounts(
            sql: """
                SELECT \(column) AS key, count(*) AS count, sum(1.0 / sample_rate) AS estimated
                FROM events WHERE timestamp >= ? GROUP BY \(column) ORDER BY \(order)
                """, arguments: [Self.start(date)])
    }

    /// Rows of `key`, `count` and `estimated` as report lines.
    private func fetchCounts(sql: String, arguments: StatementArguments) async throws -> [AnalyticsCount] {
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).map {
                    AnalyticsCount(key: $0["key"], count: $0["count"], estimated: $0["estimated"])
                }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot read the analytics report from \(path)", underlying: error)
        }
    }

    /// `date` in seconds since 1970, or the earliest time when nil.
    static func start(_ date: Date?) -> Double { date?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude }

    /// Every stored record with this name (all when nil), oldest first; for tests and small exports.
    package func records(named name: String? = nil) async throws -> [AnalyticsRecord] {
        try await fetchRecords(
            sql: "SELECT * FROM events WHERE ? IS NULL OR name = ? ORDER BY timestamp, id", arguments: [name, name])
    }

    /// The newest `limit` records stored after `timestamp` (all when nil), oldest first: what `tail` prints.
    package func latestRecords(limit: Int, after timestamp: Date? = nil) async throws -> [AnalyticsRecord] {
        let after = Self.start(timestamp)
        return try await fetchRecords(
            sql: """
                SELECT * FROM (SELECT * FROM events WHERE timestamp > ? ORDER BY timestamp DESC, id DESC LIMIT ?)
                ORDER BY timestamp, id
                """, arguments: [after, limit])
    }

    private func fetchRecords(sql: String, arguments: StatementArguments) async throws -> [AnalyticsRecord] {
        let decoder = JSONDecoder()
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                    let id: String = row["id"]
                    let session: String = row["session_id"]
                    let parameters: String = row["parameters"]
                    let context: String = row["context"]
                    let traits: String = row["traits"]
                    let anonymousID: String? = row["anonymous_id"]
                    return AnalyticsRecord(
                        id: UUID(uuidString: id) ?? UUID(), name: row["name"],
                        parameters: try decoder.decode([String: String].self, from: Data(parameters.utf8)),
                        timestamp: Date(timeIntervalSince1970: row["timestamp"]),
                        sessionID: UUID(uuidString: session) ?? UUID(),
                        context: try decoder.decode([String: String].self, from: Data(context.utf8)),
                        sampleRate: row["sample_rate"], userID: row["user_id"],
                        anonymousID: anonymousID.flatMap(UUID.init(uuidString:)),
                        traits: try decoder.decode([String: String].self, from: Data(traits.utf8)))
                }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot read analytics records from \(path)", underlying: error)
        }
    }
}

/// Document operations per collection, as recorded from the bus (`documents_cost` events), scaled back by sampling.
public struct AnalyticsCollectionCost: Sendable, Hashable, Codable {
    /// The collection id.
    public var collection: String
    /// Document reads.
    public var reads: Double
    /// Document writes.
    public var writes: Double
    /// Document deletes.
    public var deletes: Double
    /// The UTC day (`yyyy-MM-dd`) in a per-day report, nil in totals.
    public var day: String?

    /// Creates a line.
    package init(collection: String, reads: Double, writes: Double, deletes: Double, day: String? = nil) {
        self.collection = collection
        self.day = day
        self.reads = reads
        self.writes = writes
        self.deletes = deletes
    }
}

extension SQLiteAnalyticsEngine {
    /// Records per value of parameter `key` (of the events named `event`, or all), most frequent first; with no
    /// `key`, records per `name.parameter=value` over every parameter.
    package func countsByParameter(
        _ key: String? = nil, event: String? = nil, since date: Date? = nil
    ) async throws -> [AnalyticsCount] {
        try await fetchCounts(
            sql: """
                SELECT events.name || '.' || p.key || '=' || p.value AS key, count(*) AS count,
                    sum(1.0 / sample_rate) AS estimated
                FROM events, json_each(events.parameters) AS p
                WHERE timestamp >= ? AND (? IS NULL OR p.key = ?) AND (? IS NULL OR events.name = ?)
                GROUP BY 1 ORDER BY count DESC, key LIMIT 1000
                """, arguments: [Self.start(date), key, key, event, event])
    }

    /// Document reads, writes and deletes per collection since `date`, from the `documents_cost` events the bus
    /// recorder stored; most reads first.
    public func documentCosts(since date: Date? = nil) async throws -> [AnalyticsCollectionCost] {
        try await costs(since: date, perDay: false)
    }

    /// The same per UTC day and collection, oldest day first — the console's usage chart.
    package func documentCostsByDay(since date: Date? = nil) async throws -> [AnalyticsCollectionCost] {
        try await costs(since: date, perDay: true)
    }

    private func costs(since date: Date?, perDay: Bool) async throws -> [AnalyticsCollectionCost] {
        let since = Self.start(date)
        let (day, group, order) =
            perDay ? ("day", "1, 5", "day, reads DESC, collection") : ("NULL", "1", "reads DESC, collection")
        do {
            return try await pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT coalesce(json_extract(parameters, '$.collection'), '') AS collection,
                            sum(coalesce(CAST(json_extract(parameters, '$.reads') AS REAL), 0) / sample_rate) AS reads,
                            sum(coalesce(CAST(json_extract(parameters, '$.writes') AS REAL), 0) / sample_rate)
                                AS writes,
                            sum(coalesce(CAST(json_extract(parameters, '$.deletes') AS REAL), 0) / sample_rate)
                                AS deletes,
                            \(day) AS day
                        FROM events WHERE name = 'documents_cost' AND timestamp >= ?
                        GROUP BY \(group) ORDER BY \(order)
                        """, arguments: [since]
                ).map {
                    AnalyticsCollectionCost(
                        collection: $0["collection"], reads: $0["reads"], writes: $0["writes"],
                        deletes: $0["deletes"], day: $0["day"])
                }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot read document costs from \(path)", underlying: error)
        }
    }

}
