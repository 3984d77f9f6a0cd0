import Foundation
import GRDB
public import Logging
import SuiteCore
import Synchronization

/// The default ``DocumentEngine``: one SQLite file, in WAL mode, through a GRDB `DatabasePool` (one writer, concurrent
/// readers that never block it).
///
/// ```swift
/// let engine = try SQLiteDocumentEngine(path: dataDirectory + "/documents.sqlite", logger: logger)
/// let result = try await engine.commit(mutations, commitTime: clock.microseconds)
/// ```
///
/// ## Durability
///
/// A commit is one SQLite write transaction; `commit(_:commitTime:)` returns only after it has committed.
///
/// - With ``Durability-swift.enum/normal`` (the default, `PRAGMA synchronous = NORMAL`, GRDB's own default for WAL)
///   the write-ahead log is synced to disk at checkpoints, not at every commit. **Guarantee:** an acknowledged commit
///   survives any crash of the process (`kill -9`, a trap, an abort) because it is in the log, which the OS holds;
///   after a power loss or an operating-system crash the file still opens consistent, but the commits acknowledged
///   since the last checkpoint (at most about 10,000 pages of log — the engine checkpoints every ~40 MiB of log —
///   typically the last second or few of writes) can be missing — whole commits, never part of one.
/// - With ``Durability-swift.enum/full`` (`synchronous = FULL`) the log is synced (`fdatasync`) at every commit: an
///   acknowledged commit also survives a power loss, at the cost of an fsync per commit (several times slower
///   single-document commits; little on bulk commits).
///
/// Either way a killed process leaves a file that reopens cleanly; SQLite replays the log on open (see the crash test
/// in `SQLiteDocumentEngineTests`).
///
/// ## Closing
///
/// End with ``shutdown()`` from async code (``DocumentStore/close()`` calls it): it finishes the index flush or merge
/// under way, flushes the pending index operations into a run when more than 8,192 are left (every process reads the
/// pending ones on its first query), does the merges then due, and closes the file — suspending the caller, never
/// blocking a thread. ``close()`` is the synchronous, immediate variant: it abandons background work and blocks.
/// `indexStatus()` tells how many operations are pending.
///
/// ## Storage
///
/// Documents, their change log (which holds the bodies) and the secondary indexes (a log-structured merge tree of
/// pending operations and sorted runs) live in the one file; Modules/Documents/README.md describes the tables. The
/// schema is v6, migrated by GRDB's `DatabaseMigrator` (`SQLiteDocumentEngine+Schema.swift`). A file written by a
/// newer schema, a file that is not a SQLite database, or a SQLite database of another application is refused with a
/// ``DocumentsError``.
public final class SQLiteDocumentEngine: Sendable {
    /// How hard a commit works to survive a power loss; see the type's documentation.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// `synchronous = NORMAL` (the default): survives any process crash; a power loss or OS crash can lose the
        /// commits acknowledged since the last checkpoint, never part of a commit, never the file.
        case normal
        /// `synchronous = FULL`: every commit is synced to disk before it is acknowledged. Survives power loss.
        case full
    }

    /// The most distinct paths one commit may write (the change log's key reserves 20 bits per commit).
    @_spi(Engine) public static let maximumPathsPerCommit = (1 << 20) - 1

    /// The database file.
    public let path: String
    /// The durability level the file was opened with.
    public let durability: Durability
    /// How long the change log keeps its records (see ``pruneChangeLog(steps:)``).
    public let changeLogRetention: ChangeLogRetention

    let pool: DatabasePool
    /// Connections of the engine's own for single-document reads (``SQLitePointReader``).
    let pointReader: SQLitePointReader
    let logger: Logger
    let isClosed = Atomic<Bool>(false)
    /// Set by the first ``shutdown()`` (or ``close()``): later ones return at once.
    let isShuttingDown = Atomic<Bool>(false)
    let indexIDs = IndexIDs()
    let pendingIndex = PendingIndexCache()
    /// Merges index runs in the background.
    let maintenance: SQLiteIndexMaintenance
    let tuning: IndexTuning
    let writerPending = WriterPending()
    let writeGate = AsyncGate()
    /// Set by this engine's first commit: ``shutdown()`` prunes the change log only then.
    let hasCommitted = Atomic<Bool>(false)
    /// This engine instance's identity: a commit it prepared carries it (``PreparedCommit/preparedBy``).
    let instanceID = UUID()

    /// Opens (creating if needed) the documents database at `path` and migrates it to the current schema.
    ///
    /// `changeLogRetention` says how long the change log keeps its records (7 days and at least the latest 100,000 by
    /// default); a reader asking for pruned changes gets ``DocumentsError/Code-swift.struct/resyncRequired``.
    ///
    /// - Throws: ``DocumentsError`` — `.corrupted` when the file is not a SQLite database or belongs to another
    ///   application, `.unsupported` when a newer version of Suite wrote it, `.invalidValue` for a retention out of
    ///   range, `.storage` for any other failure.
    public convenience init(
        path: String,
        durability: Durability = .normal,
        changeLogRetention: ChangeLogRetention = .standard,
        logger: Logger = Logger(label: "suite.documents")
    ) throws {
        try self.init(
            path: path, durability: durability, logger: logger, tuning: .standard,
            changeLogRetention: changeLogRetention)
    }

    /// Opens the database with the index shaped by `tuning` (tests use small sizes to flush and merge often).
    init(
        path: String, durability: Durability, logger: Logger, tuning: IndexTuning,
        changeLogRetention: ChangeLogRetention = .standard
    ) throws {
        try changeLogRetention.validate()
        self.changeLogRetention = changeLogRetention
        self.tuning = tuning
        self.path = path
        self.durability = durability
        self.logger = logger
        var configuration = Configuration()
        configuration.label = "suite.documents"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // Page caches (negative values are KiB); sizes and checkpoint interval: README, "The SQLite engine's design".
            if db.configuration.readonly {
                // Readers map the file (up to 1 GiB); the page cache holds what lies beyond.
                try db.execute(sql: "PRAGMA cache_size = -16384; PRAGMA mmap_size = 1073741824")
            } else {
                // Checkpoints every 10,000 pages of log (about 40 MiB); the log is truncated back to 64 MiB after one.
                try db.execute(
                    sql: """
                        PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 10000; \
                        PRAGMA journal_size_limit = 67108864
                        """)
            }
        }
        do {
            pool = try FirstOpen.retrying {
                let pool = try DatabasePool(path: path, configuration: configuration)
                // Only the writer's level matters. It is set here, not in `prepareDatabase`: a GRDB pool switches its
                // writer to `synchronous = NORMAL` after `prepareDatabase` runs.
                let synchronous = durability == .full ? "FULL" : "NORMAL"
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
                try Self.checkOwnership(pool, path: path)
                try Self.migrator.migrate(pool)
                try pool.write { db in try SQLiteIndexMaintenance.removeAbandonedRuns(db) }
                return pool
            }
        } catch {
            let mapped = Self.mapError(error, path: path)
            logger.error("cannot open documents database", metadata: ["path": "\(path)", "error": "\(mapped)"])
            throw mapped
        }
        maintenance = SQLiteIndexMaintenance(pool: pool, tuning: tuning, logger: logger)
        pointReader = SQLitePointReader(path: path)
        logger.debug("opened documents database", metadata: ["path": "\(path)", "durability": "\(durability)"])
    }

    /// The writer connection's `PRAGMA synchronous` (1 NORMAL, 2 FULL), for tests.
    func synchronousLevel() async throws -> Int {
        try await write { db in
            let select = try SQLiteStatement(db, "PRAGMA synchronous")
            defer { select.reset() }
            return try select.step() ? Int(select.int64(0)) : -1
        }
    }

    /// Waits until no background index merge is running (tests).
    func waitForIndexMaintenance() {
        maintenance.waitUntilIdle()
    }
}
