package import Foundation
import GRDB
import SuiteCore

/// The persisted queue between the manager and the engines: one SQLite file in WAL mode (through GRDB) that holds
/// every accepted record until its engine confirms delivery, so a crash or a restart loses nothing that was persisted.
///
/// ```swift
/// let queue = try AnalyticsQueue(path: dataDirectory + "/analytics-queue.sqlite")
/// let analytics = try AnalyticsManager(engine: engine, queue: queue)
/// ```
///
/// A record is *pending* until a flusher leases it (*in flight*); it leaves the queue only when the engine reports it
/// delivered. A failed delivery puts it back with its attempt count, last error and the time of its next attempt; a
/// record the engine rejects, or that used its last attempt, stays as *failed* with the reason, and is never resent.
/// A lease names the process holding it and expires after ``leaseDuration`` seconds; a lease whose process has died
/// (kill -9 in the middle of a delivery) is released as soon as another flusher looks, so the next process delivers
/// those records at once (the receiver may see one twice and deduplicates by ``AnalyticsRecord/id``).
///
/// Beside the records, the file keeps the manager's state between launches (consent, identity, current session) in a
/// `state` table of its own, so one file holds everything analytics stores on the device.
///
/// A write commits to the WAL with `synchronous = NORMAL`: it survives a crash of the process (kill -9); after a power
/// loss the last commits may be missing.
public final class AnalyticsQueue: Sendable {
    /// The database file.
    public let path: String
    /// How long, in seconds, a leased (in-flight) record is reserved for its flusher.
    public let leaseDuration: Double
    let pool: DatabasePool

    /// Opens (creating if needed) the queue at `path`, a file of its own.
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the file cannot be opened or is another program's database;
    ///   `.invalidConfiguration` for a lease duration that is not positive.
    public init(path: String, leaseDuration: Double = 60) throws(AnalyticsError) {
        guard leaseDuration > 0 else {
            throw AnalyticsError(
                .invalidConfiguration, "analytics queue lease duration is \(leaseDuration); it must be positive",
                hint: "pass e.g. AnalyticsQueue(path: …, leaseDuration: 60)")
        }
        self.path = path
        self.leaseDuration = leaseDuration
        do {
            var configuration = GRDB.Configuration()
            configuration.label = "suite.analytics.queue"
            configuration.busyMode = .timeout(10)
            pool = try FirstOpen.retrying {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try Self.migrator.migrate(pool)
                return pool
            }
        } catch {
            throw AnalyticsError(
                .storage, "cannot open the analytics queue at \(path)",
                hint: "point the queue at a writable file of its own, e.g. <data directory>/analytics-queue.sqlite",
                underlying: error)
        }
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE queue (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        id TEXT NOT NULL UNIQUE,
                        record BLOB NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        next_attempt_at REAL NOT NULL DEFAULT 0,
                        lease_until REAL,
                        failed INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX queue_due ON queue(failed, next_attempt_at);
                    """)
        }
        // The process holding a lease, so a lease of a process that died is released at once.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "ALTER TABLE queue ADD COLUMN lease_owner INTEGER")
        }
        // The live leases, so looking for a dead process's leases reads the few in flight, not the whole queue; a
        // lease walks seq instead of queue_due (which it sorted whole each time), so every append skips that index.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE INDEX queue_leased ON queue(lease_until) WHERE lease_until IS NOT NULL;
                    DROP INDEX queue_due;
                    """)
        }
        // What the manager keeps between launches: consent, identity, the current session (AnalyticsQueue+State).
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "CREATE TABLE state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)")
        }
        return migrator
    }()

    /// The queue's counts at `now`: pending, in flight, waiting to retry and failed (with reasons).
    package func status(at now: Date = Date()) async throws -> AnalyticsQueueStatus {
        try await read("read the queue status") { db in
            let time = now.timeIntervalSince1970
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT
                        coalesce(sum(failed = 0 AND (lease_until IS NULL OR lease_until <= ?)), 0) AS pending,
                        coalesce(sum(failed = 0 AND lease_until > ?), 0) AS inFlight,
                        coalesce(sum(failed = 0 AND attempts > 0), 0) AS retrying,
                        coalesce(sum(failed = 1), 0) AS failed
                    FROM queue
                    """, arguments: [time, time])
            let reasons = try Row.fetchAll(
                db,
                sql: """
                    SELECT coalesce(last_error, '') AS reason, count(*) AS count FROM queue
                    WHERE failed = 1 GROUP BY reason ORDER BY count DESC, reason
                    """
            ).map { AnalyticsQueueStatus.FailureReason(reason: $0["reason"], count: $0["count"]) }
            return AnalyticsQueueStatus(
                pending: row?["pending"] ?? 0, inFlight: row?["inFlight"] ?? 0, retrying: row?["retrying"] ?? 0,
                failed: row?["failed"] ?? 0, failureReasons: reasons)
        }
    }

    func read<T: Sendable>(_ doing: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.read(body) } catch {
            throw AnalyticsError(.storage, "cannot \(doing) in \(path)", underlying: error)
        }
    }

    func write<T: Sendable>(_ doing: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do { return try await pool.write(body) } catch {
            throw AnalyticsError(.storage, "cannot \(doing) in \(path)", underlying: error)
        }
    }
}
