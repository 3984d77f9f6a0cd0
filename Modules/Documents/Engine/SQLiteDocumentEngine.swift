import Foundation
import GRDB
public import Logging
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
/// A commit is one SQLite write transaction; ``commit(_:commitTime:)`` returns only after it has committed.
///
/// - With ``Durability-swift.enum/normal`` (the default, `PRAGMA synchronous = NORMAL`, GRDB's own default for WAL)
///   the write-ahead log is synced to disk at checkpoints, not at every commit. **Guarantee:** an acknowledged commit
///   survives any crash of the process (`kill -9`, a trap, an abort) because it is in the log, which the OS holds;
///   after a power loss or an operating-system crash the file still opens consistent, but the commits acknowledged
///   since the last checkpoint (at most about 10,000 pages of log — the engine checkpoints every ~40 MiB of log —
///   typically the last second or few of writes) can be missing — whole commits, never part of one.
/// - With ``Durability-swift.enum/full`` (`synchronous = FULL`) the log is synced (`fdatasync`) at every commit: an
///   acknowledged commit also survives a power loss. Measured on the 2-core build machine (schema v2) it cost 5–10×
///   on single-document commits — an fsync per commit — and little on bulk commits; choose it where a lost second of
///   writes on power loss is not acceptable.
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
/// ``indexStatus()`` tells how many operations are pending.
///
/// ## Storage
///
/// - `documents` (`WITHOUT ROWID`): one small row per document (version, times, the change-log row holding its body)
///   keyed by `(parent, doc_id)`, so listing a collection is a range scan of the primary key. `(collection_id,
///   name_key)` is indexed for collection-group listings, where `name_key` orders paths segment by segment
///   (Firestore's document-name order).
/// - `changes`: the change log, and where bodies live: each row holds the document as that commit left it, and a
///   document's row points at the change row of its last write, so a body is written once per write (not once for
///   the document and again for the log). The row also keeps the document's own index entries (`index_keys`), so an
///   update removes exactly the entries it replaces, and — for a small commit — its index changes as pending
///   operations (`index_ops`). Its integer key is `sequence << 20 | n`, so reading from a sequence is a range scan of
///   the table's own b-tree; this caps a commit at 1,048,575 distinct paths (``maximumPathsPerCommit``). Pruning
///   (``changeLogRetention``, `SQLiteDocumentEngine+ChangeLog.swift`) keeps the rows documents point at and the
///   rows after the index's flush point.
/// - The secondary indexes (since schema v3), a log-structured merge tree inside the file (`SQLiteIndexRuns.swift` tells
///   the design): pending operations in change rows after `index_state.flushed_through`, merged by every scan from
///   a per-process cache; sorted, immutable runs (`index_runs`) of blocks (`index_blocks`, a few KiB of consecutive
///   entries of one index, keyed by their last entry), written in the background once the pending operations reach
///   131,072 (directly by a commit that brings 8,192 or more), and merged in the background by size tiers (eight of
///   a tier into one; `SQLiteIndexMaintenance.swift`). A single-document commit so dirties no index page; a bulk
///   commit writes its entries sequentially. Index
///   names are integer ids in `index_names(id, name)`, cached: ids are never deleted or reused.
/// - `metadata(meta_key, value)`.
///
/// The schema is v6. Schema changes go through GRDB's `DatabaseMigrator` (`SQLiteDocumentEngine+Schema.swift`); v6
/// gives a partial index run an owner token and a lease instead of a process id; v5 lets a new document's change row
/// say that its index operations are its own entries (instead of a second copy); v4 changed no table: it rewrote the
/// keys of automatic index entries longer than ``IndexKey/maximumLength``, which earlier files hold whole, as
/// ``IndexKey/bounded(_:)`` keys (the engine stores the keys it is given; the store bounds them). A file written by a newer schema, a file that is not a SQLite database, or a SQLite database of
/// another application is refused with a ``DocumentsError``.
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
    public static let maximumPathsPerCommit = (1 << 20) - 1

    /// The database file.
    public let path: String
    /// The durability level the file was opened with.
    public let durability: Durability
    /// How long the change log keeps its records (see ``pruneChangeLog(steps:)``).
    public let changeLogRetention: ChangeLogRetention

    let pool: DatabasePool
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
            // Page caches (negative values are KiB). The writer's is 16 MiB: index entries go to sequentially written
            // runs, not random b-tree pages, and against 64 MiB a 100k-document `suite docs import` was as fast
            // (2.8–3.0 s against 3.1 s) with a peak memory of 153–172 MB instead of 216–224 MB.
            if db.configuration.readonly {
                // Readers map the file (up to 1 GiB) instead of copying pages into their own caches: a point read
                // then costs about half as much on a large file. The page cache still holds what lies beyond.
                try db.execute(sql: "PRAGMA cache_size = -16384; PRAGMA mmap_size = 1073741824")
            } else {
                // Checkpoints every 10,000 pages of log (about 40 MiB) instead of SQLite's 1,000: a commit with index
                // entries dirties a page per entry at random places, so the default checkpointed (writing back and
                // syncing the file) every few dozen single-document commits; a larger log lets a checkpoint write a
                // hot page once for many commits. Measured: single-document commits 1.0k → 2.0k/s, bulk imports of
                // 500 per commit 4.9k → 6.2k docs/s. The log is truncated back to 64 MiB after a checkpoint.
                try db.execute(
                    sql: """
                        PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 10000; \
                        PRAGMA journal_size_limit = 67108864
                        """)
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Only the writer's level matters. It is set here, not in `prepareDatabase`: a GRDB pool switches its
            // writer to `synchronous = NORMAL` after `prepareDatabase` runs.
            let synchronous = durability == .full ? "FULL" : "NORMAL"
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            try Self.checkOwnership(pool, path: path)
            try Self.migrator.migrate(pool)
            try pool.write { db in try SQLiteIndexMaintenance.removeAbandonedRuns(db) }
        } catch {
            let mapped = Self.mapError(error, path: path)
            logger.error("cannot open documents database", metadata: ["path": "\(path)", "error": "\(mapped)"])
            throw mapped
        }
        maintenance = SQLiteIndexMaintenance(pool: pool, tuning: tuning, logger: logger)
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
