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
    public init(key: String, count: Int, estimated: Double) {
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
        let since = date?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
        do {
            return try await pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(column) AS key, count(*) AS count, sum(1.0 / sample_rate) AS estimated
                        FROM events WHERE timestamp >= ? GROUP BY \(column) ORDER BY \(order)
                        """, arguments: [since]
                ).map { AnalyticsCount(key: $0["key"], count: $0["count"], estimated: $0["estimated"]) }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot read the analytics report from \(path)", underlying: error)
        }
    }

    /// Every stored record with this name (all when nil), oldest first; for tests and small exports.
    public func records(named name: String? = nil) async throws -> [AnalyticsRecord] {
        let decoder = JSONDecoder()
        do {
            return try await pool.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: "SELECT * FROM events WHERE ? IS NULL OR name = ? ORDER BY timestamp, id",
                    arguments: [name, name])
                return try rows.map { row in
                    let id: String = row["id"]
                    let session: String = row["session_id"]
                    let parameters: String = row["parameters"]
                    let context: String = row["context"]
                    return AnalyticsRecord(
                        id: UUID(uuidString: id) ?? UUID(), name: row["name"],
                        parameters: try decoder.decode([String: String].self, from: Data(parameters.utf8)),
                        timestamp: Date(timeIntervalSince1970: row["timestamp"]),
                        sessionID: UUID(uuidString: session) ?? UUID(),
                        context: try decoder.decode([String: String].self, from: Data(context.utf8)),
                        sampleRate: row["sample_rate"])
                }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot read analytics records from \(path)", underlying: error)
        }
    }
}
