import Foundation
import GRDB
import Logging
import Synchronization

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// Keeps the SQLite store's write-ahead log short without making a `store` pay for it: the writer connection's
/// automatic checkpoint (which copies the log into the database and syncs both files, milliseconds of I/O on the
/// thread of whichever commit crosses 1,000 pages) is replaced by a passive checkpoint on a connection of its own, on
/// its own queue, while stores go on committing to the log.
///
/// A passive checkpoint never waits for a lock, so under a steady stream of commits it may not catch up with the log;
/// past ``catchUpPages`` the store's next write waits for one (``catchUp()``) with this process's writes held back,
/// which does.
final class CacheCheckpointer: Sendable {
    /// Log pages written since the last checkpoint past which a background checkpoint starts (SQLite's own automatic
    /// checkpoint threshold).
    static let checkpointPages = 1_000
    /// Log pages past which the store checkpoints between writes.
    static let catchUpPages = 4_000

    /// The log's size in pages after the writer's last commit (SQLite's WAL hook).
    private let pages = Atomic<Int>(0)
    /// The log pages the last checkpoint had copied (the log restarts from 0 after a complete one).
    private let copied = Atomic<Int>(0)
    private let running = Atomic<Bool>(false)
    private let connection: DatabaseQueue
    private let logger: Logger

    /// Opens the checkpoint connection to the database at `path` (already in WAL mode).
    init(path: String, logger: Logger) throws {
        var configuration = GRDB.Configuration()
        configuration.label = "suite.cache.checkpoint"
        // Opening reads the schema, which waits while another connection holds the file's lock (e.g. making it new).
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.logger = logger
    }

    /// Takes over `db`'s (the writer connection's) automatic checkpoint: its commits report the log's size here.
    ///
    /// The hook holds this object unretained: the store keeps it for as long as its writer connection may commit.
    func install(on db: Database) {
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, _, _, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<CacheCheckpointer>.fromOpaque(context).takeUnretainedValue().pages.store(
                    Int(pages), ordering: .relaxed)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Whether the log has outgrown what background checkpoints keep up with.
    var needsCatchUp: Bool { pages.load(ordering: .relaxed) >= Self.catchUpPages }

    /// Starts a passive checkpoint in the background if the log grew enough since the last one and none is running.
    func checkpointIfNeeded() {
        let pages = pages.load(ordering: .relaxed)
        let copied = copied.load(ordering: .relaxed)
        guard pages - (pages < copied ? 0 : copied) >= Self.checkpointPages,
            !running.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        connection.asyncWriteWithoutTransaction { [self] db in
            defer { running.store(false, ordering: .releasing) }
            do {
                try checkpoint(db)
            } catch {
                // Busy: another connection is checkpointing. Anything else: the next commit tries again.
                logger.debug("cache checkpoint did not run", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Runs a checkpoint after any under way, suspending meanwhile. The caller keeps this process's writes out (the
    /// store's write gate), so it copies the whole log unless a reader still uses its end.
    func catchUp() async {
        do {
            try await connection.writeWithoutTransaction { [self] db in try checkpoint(db) }
        } catch {
            logger.debug("cache checkpoint did not run", metadata: ["error": "\(error)"])
        }
    }

    /// Runs a passive checkpoint on `db` and, when it copied the whole log, notes that the next commit restarts it.
    private func checkpoint(_ db: Database) throws {
        let (log, copied) = try db.checkpoint(.passive)
        self.copied.store(copied, ordering: .relaxed)
        if copied == log { pages.store(0, ordering: .relaxed) }
    }

    /// Closes the checkpoint connection, after a checkpoint under way.
    func close() throws {
        try connection.close()
    }
}
