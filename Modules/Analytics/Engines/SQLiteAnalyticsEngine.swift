import Foundation
import GRDB
import SuiteCore

/// Stores records in a queryable SQLite table (WAL, through GRDB), deduplicated by id, with a small report API
/// (``countsByEvent(since:)``, ``countsByDay(since:)``).
///
/// The table, for queries of your own:
///
/// ```sql
/// CREATE TABLE events (id TEXT PRIMARY KEY, name TEXT, timestamp REAL, day TEXT, session_id TEXT,
///                      parameters TEXT, context TEXT, sample_rate REAL,   -- parameters, context: JSON objects
///                      user_id TEXT, anonymous_id TEXT, traits TEXT)      -- traits: a JSON object
/// ```
///
/// `day` is the UTC date (`yyyy-MM-dd`); `timestamp` is seconds since 1970.
public final class SQLiteAnalyticsEngine: AnalyticsEngine {
    /// The database file.
    public let path: String
    let pool: DatabasePool

    /// Opens (creating if needed) the events database at `path`.
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the file cannot be opened or migrated.
    public init(path: String) throws {
        self.path = path
        do {
            var configuration = GRDB.Configuration()
            configuration.label = "suite.analytics.events"
            configuration.busyMode = .timeout(10)
            pool = try FirstOpen.retrying {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try Self.migrator.migrate(pool)
                return pool
            }
        } catch {
            throw AnalyticsError(
                .storage, "cannot open the analytics events database at \(path)",
                hint: "check the path is a writable file of its own", underlying: error)
        }
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE events (
                        id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, timestamp REAL NOT NULL,
                        day TEXT NOT NULL, session_id TEXT NOT NULL, parameters TEXT NOT NULL,
                        context TEXT NOT NULL, sample_rate REAL NOT NULL);
                    CREATE INDEX events_name ON events(name);
                    CREATE INDEX events_timestamp ON events(timestamp);
                    """)
        }
        // Who the event is about (AnalyticsManager.identify); NULL and '{}' for events stored before.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    ALTER TABLE events ADD COLUMN user_id TEXT;
                    ALTER TABLE events ADD COLUMN anonymous_id TEXT;
                    ALTER TABLE events ADD COLUMN traits TEXT NOT NULL DEFAULT '{}';
                    """)
        }
        return migrator
    }()

    /// Inserts the batch in one transaction; a record whose id is already stored is skipped (a redelivery).
    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var rows: [(AnalyticsRecord, String, String, String)] = []
        var report = DeliveryReport()
        for record in batch {
            do {
                rows.append(
                    (
                        record, String(decoding: try encoder.encode(record.parameters), as: UTF8.self),
                        String(decoding: try encoder.encode(record.context), as: UTF8.self),
                        String(decoding: try encoder.encode(record.traits), as: UTF8.self)
                    ))
            } catch {
                report.rejected[record.id] = "cannot encode as JSON: \(error)"
            }
        }
        let prepared = rows
        do {
            try await pool.write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO events
                            (id, name, timestamp, day, session_id, parameters, context, sample_rate, user_id,
                             anonymous_id, traits)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for (record, parameters, context, traits) in prepared {
                    try statement.execute(arguments: [
                        record.id.uuidString.lowercased(), record.name, record.timestamp.timeIntervalSince1970,
                        Self.day(of: record.timestamp), record.sessionID.uuidString.lowercased(), parameters, context,
                        record.sampleRate, record.userID, record.anonymousID?.uuidString.lowercased(), traits,
                    ])
                }
            }
        } catch {
            throw AnalyticsError(.storage, "cannot write analytics events to \(path)", underlying: error)
        }
        return report
    }

    /// The UTC day of `date`, `yyyy-MM-dd`.
    static func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let pad = { (value: Int?) in value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 0)-\(pad(parts.month))-\(pad(parts.day))"
    }
}
