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

// MARK: - DocumentEngine

extension SQLiteDocumentEngine: DocumentEngine {
    /// Applies the mutations in one write transaction; see ``DocumentEngine/commit(_:commitTime:)``.
    ///
    /// Mutations apply in order (a later mutation of a path sees the earlier one's result); a failing precondition
    /// rolls the whole transaction back. The change log gets one record per distinct path with its final state. An
    /// empty commit writes nothing and returns the current last sequence.
    public func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        if mutations.isEmpty { return CommitResult(sequence: try await lastSequence(), documents: []) }
        let split = CommitChecks(mutations)
        return try await run(
            try CommitWork(split.writes, ahead: false, indexIDs: indexIDs, tuning: tuning), split, commitTime)
    }

    /// Works out, outside any transaction, what a bulk commit needs no database for: each put's own index entries
    /// (by index id, canonical) and their encoding, and — for the usual import of new documents — every entry as a
    /// put, sorted, ready to be written as a run. The bulk importer prepares its next chunk so while the previous one
    /// writes. Small commits prepare nothing: their work is small and the write follows at once.
    package func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit {
        let writes = CommitChecks(mutations).writes
        return PreparedCommit(
            mutations: mutations,
            engineWork: writes.isEmpty
                ? nil : try CommitWork(writes, ahead: true, indexIDs: indexIDs, tuning: tuning),
            preparedBy: instanceID)
    }

    /// Prepares a bulk commit of puts from their flat entries (``BulkPuts``): ids for every index name (a new name
    /// is created in a short transaction of its own first), every entry sorted as a put straight from the batch, and
    /// each document's own-entry list encoded from the sorted buffer. No array per document or per key is built.
    package func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit {
        let mutations = puts.paths.indices.map { i in
            DocumentMutation(path: puts.paths[i], kind: .put(body: puts.bodies[i], indexEntries: []))
        }
        if mutations.isEmpty { return PreparedCommit(mutations: []) }
        let ids = try await indexIDs(creating: puts.entries.names)
        return PreparedCommit(
            mutations: mutations,
            engineWork: try CommitWork(bulk: puts, mutations: mutations, ids: ids, tuning: tuning),
            preparedBy: instanceID)
    }

    /// The ids of the index names `names`, creating (and committing) those that do not exist yet.
    func indexIDs(creating names: [String]) async throws -> [Int64] {
        let known = indexIDs.snapshot()
        let missing = names.filter { known[$0] == nil }
        if missing.isEmpty { return names.map { known[$0]! } }
        let indexIDs = indexIDs
        let created = try await write { db in try missing.map { try indexIDs.idCreating($0, db) } }
        // Committed now: the ids are the file's for good.
        let ids = indexIDs.remember(Dictionary(zip(missing, created), uniquingKeysWith: { first, _ in first }))
        return names.map { ids[$0]! }
    }

    /// Commits what ``prepareCommit(_:)`` prepared; see ``commit(_:commitTime:)-(Array<DocumentMutation>,_)``.
    ///
    /// - Throws: ``DocumentsError/Code-swift.struct/wrongEngine`` when another engine (instance) prepared it: its work
    ///   holds that engine's index ids.
    package func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult {
        let mutations = prepared.mutations
        let work: CommitWork?
        if let engineWork = prepared.engineWork {
            guard prepared.preparedBy == instanceID, let own = engineWork as? CommitWork else {
                throw PreparedCommit.wrongEngine(path: path)
            }
            work = own
        } else {
            work = nil
        }
        if mutations.isEmpty { return CommitResult(sequence: try await lastSequence(), documents: []) }
        let split = CommitChecks(mutations)
        return try await run(
            work ?? CommitWork(split.writes, ahead: false, indexIDs: indexIDs, tuning: tuning), split, commitTime)
    }

    /// Applies `split`'s writes and verifies its checks in one write transaction (checks that no write of the commit
    /// shadows before the writes, the others after them), so the checks hold at the commit's instant.
    private func run(_ work: CommitWork, _ split: CommitChecks, _ commitTime: Int64) async throws -> CommitResult {
        let indexIDs = indexIDs
        let writerPending = writerPending
        let tuning = tuning
        let mutations = split.writes
        let inline = mutations.count <= Self.inlineWriteLimit
        if !inline { try await waitForMerges() }
        let (result, maintain) = try await write(inline: inline) { db in
            if !split.checks.isEmpty {
                try split.verifyUnshadowed { path in try Self.currentVersion(of: path, db) }
                if mutations.isEmpty {
                    return (CommitResult(sequence: try Self.lastSequence(db), documents: []), false)
                }
            }
            let (result, maintain) = try Self.apply(
                mutations, work: work, commitTime: commitTime, indexIDs: indexIDs, writerPending: writerPending,
                tuning: tuning, db: db)
            try split.verifyShadowed(results: result.documents)
            return (result, maintain)
        }
        if maintain { maintenance.kick() }
        if !mutations.isEmpty { hasCommitted.store(true, ordering: .relaxed) }
        if !mutations.isEmpty && (result.sequence % Self.pruneInterval == 0 || mutations.count >= 1_000) {
            do {
                try await pruneChangeLog(steps: 1)
            } catch {
                logger.debug("change-log pruning failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        return split.merge(result)
    }

    /// The version of the document at `path`, or `nil`; inside a transaction.
    static func currentVersion(of path: String, _ db: Database) throws -> Int64? {
        let parts = try EnginePath.split(document: path)
        let select = try SQLiteStatement(db, "SELECT version FROM documents WHERE parent = ?1 AND doc_id = ?2")
        defer { select.reset() }
        select.bind(parts.parent, at: 1)
        select.bind(parts.id, at: 2)
        return try select.step() ? select.int64(0) : nil
    }

    /// Backpressure on bulk commits: while there are more than ``IndexTuning/maximumRuns`` runs, waits for the
    /// background merges, at most ``IndexTuning/maximumMergeWait`` — suspended, not blocking a thread.
    private func waitForMerges() async throws {
        let deadline = ContinuousClock.now + tuning.maximumMergeWait
        var kicked = false
        while try read({ db in try RunInfo.count(db) }) > tuning.maximumRuns, ContinuousClock.now < deadline {
            if !kicked {
                maintenance.kick()
                kicked = true
            }
            guard maintenance.status().running else { return }  // nothing left that it can merge
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The documents at `paths`, in order; `nil` where none exists.
    public func documents(at paths: [String]) async throws -> [StoredDocument?] {
        let parts = try paths.map { try EnginePath.split(document: $0) }
        return try read { db in
            let select = try SQLiteStatement(
                db,
                """
                SELECT d.version, d.create_time, d.update_time, c.body FROM documents d \
                CROSS JOIN changes c ON c.id = d.change_id WHERE d.parent = ?1 AND d.doc_id = ?2
                """
            )
            var result: [StoredDocument?] = []
            result.reserveCapacity(paths.count)
            for (path, part) in zip(paths, parts) {
                select.bind(part.parent, at: 1)
                select.bind(part.id, at: 2)
                defer { select.reset() }
                if try select.step() {
                    result.append(
                        StoredDocument(
                            path: path,
                            body: select.bytes(3),
                            version: select.int64(0),
                            createTime: select.int64(1),
                            updateTime: select.int64(2)
                        )
                    )
                } else {
                    result.append(nil)
                }
            }
            return result
        }
    }

    /// Entries of one index within bounds, in `(key, path)` order or reversed: the pending operations and every run
    /// merged, in one read snapshot.
    public func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        if let limit = scan.limit, limit <= 0 { return [] }
        let pending = pendingIndex
        return try read { db in
            guard let id = try indexIDs.id(of: scan.index, db) else { return [] }
            return try SQLiteIndexRuns.scan(db, index: id, scan, pending: pending)
        }
    }

    /// Documents directly in `collectionPath`, in path order, after `afterPath`, at most `limit`.
    public func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        _ = try EnginePath.collectionID(ofCollection: collectionPath)
        if let limit, limit <= 0 { return [] }
        let start = EnginePath.collectionStart(parent: collectionPath, after: afterPath)
        var afterID: String?
        switch start {
        case .none: return []
        case .all: afterID = nil
        case .afterID(let id): afterID = id
        }
        let sql = Self.childrenPageSQL(after: afterID != nil)
        return try read { [afterID] db in
            let select = try SQLiteStatement(db, sql)
            defer { select.reset() }
            select.bind(collectionPath, at: 1)
            if let afterID { select.bind(afterID, at: 2) }
            select.bind(Int64(limit ?? -1), at: 3)
            var result: [StoredDocument] = []
            let prefix = collectionPath + "/"
            while try select.step() {
                result.append(
                    StoredDocument(
                        path: prefix + select.text(0),
                        body: select.bytes(4),
                        version: select.int64(1),
                        createTime: select.int64(2),
                        updateTime: select.int64(3)
                    )
                )
            }
            return result
        }
    }

    /// Documents of every collection named `collectionID`, in path order, after `afterPath`, at most `limit`.
    public func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        try EnginePath.checkCollectionID(collectionID)
        if let limit, limit <= 0 { return [] }
        // Two sources in document-name order, merged: the nested documents of the group through the partial index
        // `documents_group`, and the top-level collection of that name through the primary key (its documents'
        // IDs order them by name among themselves).
        let afterKey = afterPath.map { EnginePath.nameKey($0) }
        let nestedSQL =
            "SELECT d.parent, d.doc_id, d.version, d.create_time, d.update_time, c.body, d.name_key FROM documents d "
            + "INDEXED BY documents_group CROSS JOIN changes c ON c.id = d.change_id "
            + "WHERE d.collection_id = ?1 AND instr(d.parent, '/') > 0"
            + (afterKey == nil ? "" : " AND d.name_key > ?2") + " ORDER BY d.name_key LIMIT ?3"
        var topAfterID: String?
        var topLevel = true
        switch EnginePath.collectionStart(parent: collectionID, after: afterPath) {
        case .none: topLevel = false
        case .all: topAfterID = nil
        case .afterID(let id): topAfterID = id
        }
        let topSQL = Self.childrenPageSQL(after: topAfterID != nil)
        return try read { [topAfterID, topLevel] db in
            var nested: [(key: [UInt8], document: StoredDocument)] = []
            let select = try SQLiteStatement(db, nestedSQL)
            select.bind(collectionID, at: 1)
            if let afterKey { select.bind(afterKey, at: 2) }
            select.bind(Int64(limit ?? -1), at: 3)
            while try select.step() {
                let document = StoredDocument(
                    path: select.text(0) + "/" + select.text(1), body: select.bytes(5), version: select.int64(2),
                    createTime: select.int64(3), updateTime: select.int64(4))
                nested.append((select.bytes(6), document))
            }
            select.reset()
            var top: [(key: [UInt8], document: StoredDocument)] = []
            if topLevel {
                let select = try SQLiteStatement(db, topSQL)
                select.bind(collectionID, at: 1)
                if let topAfterID { select.bind(topAfterID, at: 2) }
                select.bind(Int64(limit ?? -1), at: 3)
                while try select.step() {
                    let path = collectionID + "/" + select.text(0)
                    let document = StoredDocument(
                        path: path, body: select.bytes(4), version: select.int64(1), createTime: select.int64(2),
                        updateTime: select.int64(3))
                    top.append((EnginePath.nameKey(path), document))
                }
                select.reset()
            }
            var result: [StoredDocument] = []
            var i = 0
            var j = 0
            let wanted = limit ?? Int.max
            while result.count < wanted, i < nested.count || j < top.count {
                if j >= top.count || (i < nested.count && compareBytes(nested[i].key, top[j].key) < 0) {
                    result.append(nested[i].document)
                    i += 1
                } else {
                    result.append(top[j].document)
                    j += 1
                }
            }
            return result
        }
    }

    /// Change-log records after `sequence`, in order, at most `limit`.
    public func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        if limit <= 0 { return [] }
        let maximumSequence = Int64.max >> 20
        if sequence >= maximumSequence { return [] }
        let firstKey = (max(sequence, 0) + 1) << 20
        return try read { db in
            try Self.checkHorizon(after: sequence, db)
            let select = try SQLiteStatement(
                db,
                "SELECT id, path, version, create_time, update_time, body FROM changes WHERE id >= ?1 ORDER BY id LIMIT ?2"
            )
            defer { select.reset() }
            select.bind(firstKey, at: 1)
            select.bind(Int64(limit), at: 2)
            var result: [ChangeRecord] = []
            while try select.step() {
                let path = select.text(1)
                let document: StoredDocument? =
                    select.isNull(2)
                    ? nil
                    : StoredDocument(
                        path: path,
                        body: select.bytes(5),
                        version: select.int64(2),
                        createTime: select.int64(3),
                        updateTime: select.int64(4)
                    )
                result.append(ChangeRecord(sequence: select.int64(0) >> 20, path: path, document: document))
            }
            return result
        }
    }

    /// The sequence of the last commit, 0 when nothing was committed.
    public func lastSequence() async throws -> Int64 {
        try read { db in try Self.lastSequence(db) }
    }

    /// Adds index entries to existing documents without changing their version or the change log. Atomic.
    ///
    /// The new entries go into runs of their own, of at most ``IndexTuning/backfillChunk`` operations each (the first
    /// together with the pending operations), so memory stays bounded however many entries come.
    public func addIndexEntries(_ entries: [String: [IndexEntry]]) async throws {
        _ = try await addIndexEntries(entries, chunkOperations: tuning.backfillChunk)
    }

    /// ``addIndexEntries(_:)`` in runs of at most `chunkOperations` operations; returns how many runs it wrote (tests).
    func addIndexEntries(_ entries: [String: [IndexEntry]], chunkOperations: Int) async throws -> Int {
        let work = try entries.map { path, added in (path, try EnginePath.split(document: path), added) }
        let indexIDs = indexIDs
        let writerPending = writerPending
        let tuning = tuning
        // A backfill touches every document of the collection and flushes: GRDB's queue, not the calling thread.
        let chunks = try await write(inline: false) { db in
            let ownKeys = try OwnIndexKeys(db)
            var buffer = IndexOpBuffer()
            var ids = IndexIDs.Local(indexIDs)
            var chunks = 0
            func writeChunk() throws {
                if chunks == 0 {
                    try Self.flushAll(db, extra: buffer, writerPending: writerPending, tuning: tuning)
                } else {
                    // Nothing is pending since the first chunk: a run of the buffer alone.
                    let through = try SQLiteIndexRuns.flushedThrough(db)
                    try SQLiteIndexRuns.flush(
                        db, pendingAfter: through, through: through, extra: buffer, tuning: tuning)
                }
                chunks += 1
                buffer = IndexOpBuffer()
            }
            for (path, parts, added) in work {
                guard let (changeID, old) = try ownKeys.read(path: path, parts: parts) else { continue }
                let merged = OwnEntryList.canonical(old + (try ids.entries(added, db)))
                let (_, new) = OwnEntryList.difference(old: old, new: merged)
                if new.isEmpty { continue }
                let pathSlot = buffer.addPath(path.utf8)
                for entry in new { buffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: true) }
                try ownKeys.write(merged, changeID: changeID)
                if buffer.count >= max(1, chunkOperations) || buffer.arena.count >= IndexOpBuffer.chunkBytes {
                    try writeChunk()
                }
            }
            if chunks == 0 || !buffer.isEmpty { try writeChunk() }
            return chunks
        }
        maintenance.kick()
        return chunks
    }

    /// Removes every entry of `index`, and the index from each document's own entry list. Atomic.
    ///
    /// The index's entries stream past (a block per run in memory); each document is rewritten as its first entry
    /// comes by.
    public func removeIndex(_ index: String) async throws {
        let indexIDs = indexIDs
        let writerPending = writerPending
        let pending = pendingIndex
        let tuning = tuning
        try await write(inline: false) { db in
            // The name keeps its id (ids are never reused); without one, the index has no entries.
            guard let id = try indexIDs.id(of: index, db) else { return }
            try Self.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
            let ownKeys = try OwnIndexKeys(db)
            var lastPath: [UInt8] = []
            try SQLiteIndexRuns.forEachEntry(db, index: id, IndexScan(index: index), pending: pending) { _, bytes in
                // A document met again (another key of it) has lost the index already.
                if bytes.elementsEqual(lastPath) { return true }
                lastPath = [UInt8](bytes)
                let path = String(decoding: bytes, as: UTF8.self)
                guard let parts = try? EnginePath.split(document: path),
                    let (changeID, old) = try ownKeys.read(path: path, parts: parts)
                else { return true }
                let kept = old.filter { $0.index != id }
                if kept.count != old.count { try ownKeys.write(kept, changeID: changeID) }
                return true
            }
            // A background merge that read these runs before now must not bring the entries back.
            try SQLiteIndexRuns.bumpGeneration(db)
            let delete = try SQLiteStatement(db, "DELETE FROM index_blocks WHERE run = ?1 AND idx = ?2")
            for run in try RunInfo.all(db) {
                delete.bind(run.id, at: 1)
                delete.bind(id, at: 2)
                try delete.run()
            }
        }
    }

    /// Flushes every pending operation, plus `extra`, into a run; inside a write transaction.
    static func flushAll(
        _ db: Database, extra: IndexOpBuffer?, writerPending: WriterPending, tuning: IndexTuning
    ) throws {
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let through = max(flushed, try SQLiteIndexRuns.maxChangeID(db))
        try SQLiteIndexRuns.flush(db, pendingAfter: flushed, through: through, extra: extra, tuning: tuning)
        writerPending.set(flushedThrough: through, count: 0)
    }

    /// The metadata value stored under `key`, or `nil`.
    public func metadata(forKey key: String) async throws -> [UInt8]? {
        try read { db in
            let select = try SQLiteStatement(db, "SELECT value FROM metadata WHERE meta_key = ?1")
            defer { select.reset() }
            select.bind(key, at: 1)
            return try select.step() ? select.bytes(0) : nil
        }
    }

    /// Stores or (with `nil`) removes a metadata value; durable when this returns.
    public func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        try await write { db in try Self.setMetadata(value, forKey: key, db) }
    }

    /// Reads and rewrites a metadata value in one (`IMMEDIATE`) write transaction: another process's write waits for
    /// it, so nothing comes between the read and the write.
    public func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?
    ) async throws {
        try await write { db in
            let select = try SQLiteStatement(db, "SELECT value FROM metadata WHERE meta_key = ?1")
            select.bind(key, at: 1)
            let current = try select.step() ? select.bytes(0) : nil
            select.reset()
            try Self.setMetadata(try transform(current), forKey: key, db)
        }
    }

    private static func setMetadata(_ value: [UInt8]?, forKey key: String, _ db: Database) throws {
        if let value {
            let upsert = try SQLiteStatement(db, "INSERT OR REPLACE INTO metadata (meta_key, value) VALUES (?1, ?2)")
            upsert.bind(key, at: 1)
            upsert.bind(value, at: 2)
            try upsert.run()
        } else {
            let delete = try SQLiteStatement(db, "DELETE FROM metadata WHERE meta_key = ?1")
            delete.bind(key, at: 1)
            try delete.run()
        }
    }
}

// MARK: - Commit

extension SQLiteDocumentEngine {
    struct Prepared: Sendable {
        var parts: EnginePath.Parts
        var entries: [IndexEntry]
    }

    /// A commit's work that needs no database: paths split, change-log slots and, for a bulk commit prepared ahead
    /// (``prepareCommit(_:)``), its own-entry lists and sorted puts.
    struct CommitWork: Sendable {
        var prepared: [Prepared]
        var changes: ChangeSlots
        /// Per mutation: the encoded own-entry list (``OwnEntryList/encode(_:)``) of each path's final put, when the
        /// commit was prepared ahead and every index id was known; empty otherwise.
        var ownBlobs: [[UInt8]?]
        /// Each distinct path's final entries as puts, sorted: the commit's index operations when no document
        /// existed before it (an import of new documents). `nil` when an index id was unknown.
        var puts: IndexOpBuffer?
        /// ``puts`` as a run's blocks, encoded ahead when they are enough for a run of their own
        /// (``IndexTuning/directRunThreshold``): the transaction then only inserts the blocks' rows.
        var encodedPuts: EncodedRun?

        init(_ mutations: [DocumentMutation], ahead: Bool, indexIDs: IndexIDs, tuning: IndexTuning) throws {
            try self.init(
                mutations,
                entries: { mutation in
                    if case .put(_, let entries) = mutation.kind { return entries }
                    return []
                })
            guard ahead, mutations.count > SQLiteDocumentEngine.inlineWriteLimit else { return }
            // Ids from the shared cache; an unknown name leaves the work to the transaction.
            let known = indexIDs.snapshot()
            var (operations, bytes) = (0, 0)
            for last in changes.last {
                operations += prepared[last].entries.count
                bytes += mutations[last].path.utf8.count
                for entry in prepared[last].entries { bytes += entry.key.count }
            }
            let prepared = prepared
            var buffer = IndexOpBuffer()
            buffer.reserveCapacity(operations: operations, bytes: bytes)
            sortPuts(mutations, into: buffer, tuning: tuning) { document, buffer, path in
                for entry in prepared[document].entries {
                    guard let id = known[entry.index] else { return nil }
                    buffer.add(index: id, key: entry.key, path: path, isPut: true)
                }
                return prepared[document].entries.count
            }
        }

        /// The work of ``BulkPuts`` (as `mutations`, puts without entries), whose index names have the ids `ids`.
        init(bulk puts: BulkPuts, mutations: [DocumentMutation], ids: [Int64], tuning: IndexTuning) throws {
            try self.init(mutations, entries: { _ in [] })
            // A path put twice: its earlier puts are applied in the transaction, with their entries as arrays.
            if changes.last.count < mutations.count {
                var isLast = [Bool](repeating: false, count: mutations.count)
                for last in changes.last { isLast[last] = true }
                for i in mutations.indices where !isLast[i] {
                    prepared[i].entries = puts.entries.entries(ofDocument: i)
                }
            }
            var pathBytes = 0
            for path in puts.paths { pathBytes += path.utf8.count }
            // The batch's keys become the buffer's arena in one copy; entries are added by position.
            let buffer = IndexOpBuffer(
                arena: puts.entries.keys, operations: puts.entries.entryCount, bytes: pathBytes)
            sortPuts(mutations, into: buffer, tuning: tuning) { document, buffer, path in
                puts.entries.forEachStoredEntry(ofDocument: document) { name, key in
                    buffer.add(index: ids[name], storedKey: key, path: path, isPut: true)
                }
            }
        }

        private init(_ mutations: [DocumentMutation], entries: (DocumentMutation) -> [IndexEntry]) throws {
            prepared = try mutations.map { mutation in
                Prepared(parts: try EnginePath.split(document: mutation.path), entries: entries(mutation))
            }
            changes = ChangeSlots(mutations)
            guard changes.last.count <= SQLiteDocumentEngine.maximumPathsPerCommit else {
                throw DocumentsError(
                    .limitExceeded,
                    "a commit writes \(changes.last.count) documents; the SQLite engine takes at most \(SQLiteDocumentEngine.maximumPathsPerCommit)",
                    hint: "split the import into several commits"
                )
            }
            ownBlobs = []
        }

        /// Sorts every final put's entries, as puts, into one buffer (``puts``, starting from `buffer`), once for the
        /// whole commit, and encodes each one's own-entry list from it (``ownBlobs``). `addEntries(document, buffer,
        /// path)` adds the entries of mutation `document` as puts of `path` and returns how many, or `nil` when an
        /// index id is unknown: then nothing is prepared and the transaction does the work.
        private mutating func sortPuts(
            _ mutations: [DocumentMutation], into buffer: consuming IndexOpBuffer, tuning: IndexTuning,
            addEntries: (_ document: Int, _ buffer: inout IndexOpBuffer, _ path: (start: Int, count: Int)) -> Int?
        ) {
            var buffer = buffer
            var documentOfOperation: [Int32] = []
            documentOfOperation.reserveCapacity(buffer.ops.capacity)
            for last in changes.last {
                guard case .put = mutations[last].kind else { continue }
                let path = buffer.addPath(mutations[last].path.utf8)
                guard let added = addEntries(last, &buffer, path) else { return }
                documentOfOperation.append(contentsOf: repeatElement(Int32(truncatingIfNeeded: last), count: added))
            }
            buffer.sortAndCollapse()
            // Each document's own-entry list falls out of the sorted buffer: its entries come in (index, key) order,
            // deduplicated — ``OwnEntryList``'s canonical form — so it is encoded without sorting it again.
            var counts = [Int](repeating: 0, count: mutations.count)
            var sizes = [Int](repeating: 0, count: mutations.count)
            buffer.forEachOperation { order, _, key, _ in
                let document = Int(documentOfOperation[order])
                counts[document] += 1
                sizes[document] += key.count + 12
            }
            var blobs: [[UInt8]?] = Array(repeating: nil, count: mutations.count)
            for last in changes.last where counts[last] > 0 {
                var blob: [UInt8] = []
                blob.reserveCapacity(sizes[last] + 10)
                IndexOpCodec.appendVarint(UInt64(counts[last]), to: &blob)
                blobs[last] = blob
            }
            buffer.forEachOperation { order, index, key, _ in
                let document = Int(documentOfOperation[order])
                IndexOpCodec.appendVarint(UInt64(index), to: &blobs[document]!)
                IndexOpCodec.appendVarint(UInt64(key.count), to: &blobs[document]!)
                blobs[document]!.append(contentsOf: key)
            }
            ownBlobs = blobs
            puts = buffer
            if buffer.count >= tuning.directRunThreshold { encodedPuts = RunWriter.encode(buffer, tuning: tuning) }
        }
    }

    /// Index names and their integer ids (table `index_names`).
    ///
    /// Ids are never deleted or reused, so an id once read from the committed database stays valid for the file's
    /// life and is cached, whichever process created it. An id this process creates inside a write transaction is
    /// not cached (the transaction could still roll back, and another process then take the id); a later lookup
    /// reads and caches it.
    final class IndexIDs: Sendable {
        private let cache = Mutex<[String: Int64]>([:])

        /// Every cached name and id.
        func snapshot() -> [String: Int64] { cache.withLock { $0 } }

        /// Caches `ids` (names created by a committed transaction) and returns every cached name and id.
        func remember(_ ids: [String: Int64]) -> [String: Int64] {
            cache.withLock { cache in
                cache.merge(ids) { cached, _ in cached }
                return cache
            }
        }

        /// The id of `name`, or `nil` when no entry of that index was ever stored.
        func id(of name: String, _ db: Database) throws -> Int64? {
            if let id = cache.withLock({ $0[name] }) { return id }
            let select = try SQLiteStatement(db, "SELECT id FROM index_names WHERE name = ?1")
            defer { select.reset() }
            select.bind(name, at: 1)
            guard try select.step() else { return nil }
            let id = select.int64(0)
            cache.withLock { $0[name] = id }
            return id
        }

        /// Ids looked up (or created) within one write transaction: from a snapshot of the shared cache taken once
        /// (no lock per name, and no copy: the snapshot shares the cache's storage), the few others from the
        /// database. Filling a table of its own per transaction instead cost a single-document commit about 4 µs.
        struct Local {
            let shared: IndexIDs
            private let known: [String: Int64]
            private var others: [String: Int64] = [:]
            init(_ shared: IndexIDs) {
                self.shared = shared
                known = shared.snapshot()
            }

            mutating func id(_ name: String, _ db: Database) throws -> Int64 {
                if let id = known[name] ?? others[name] { return id }
                let id = try shared.idCreating(name, db)
                others[name] = id
                return id
            }

            /// `entries` with their indexes as ids, canonical.
            mutating func entries(_ entries: [IndexEntry], _ db: Database) throws -> [OwnEntry] {
                var result: [OwnEntry] = []
                result.reserveCapacity(entries.count)
                // Through this transaction's own table (no lock): most names repeat from document to document.
                for i in entries.indices {
                    result.append(OwnEntry(index: try id(entries[i].index, db), key: entries[i].key))
                }
                return OwnEntryList.canonical(result)
            }
        }

        /// The id of `name`, created if needed; only inside a write transaction, once per name and transaction.
        func idCreating(_ name: String, _ db: Database) throws -> Int64 {
            if let id = try id(of: name, db) { return id }
            let insert = try SQLiteStatement(db, "INSERT INTO index_names (name) VALUES (?1)")
            insert.bind(name, at: 1)
            try insert.run()
            return db.lastInsertedRowID
        }
    }

    /// This process's count of the pending index operations after a flush point, so a commit knows when to flush
    /// without counting the change log each time. Recounted when the flush point moved (another process flushed).
    /// Other processes' pending operations are not seen until then, so with several writing processes a flush can
    /// come later than the threshold; it still comes.
    final class WriterPending: Sendable {
        private struct State {
            var flushedThrough: Int64 = -1
            var count = 0
        }
        private let state = Mutex(State())

        func count(_ db: Database, flushedThrough: Int64) throws -> Int {
            if let count = state.withLock({ $0.flushedThrough == flushedThrough ? $0.count : nil }) { return count }
            let total = try SQLiteIndexRuns.pendingOperationCount(db, after: flushedThrough)
            set(flushedThrough: flushedThrough, count: total)
            return total
        }

        func set(flushedThrough: Int64, count: Int) {
            state.withLock { $0 = State(flushedThrough: flushedThrough, count: count) }
        }
    }

    /// A page of the documents whose parent is `?1` (after id `?2` when `after`), in id order, at most `?3`: columns
    /// doc_id, version, create_time, update_time, body.
    static func childrenPageSQL(after: Bool) -> String {
        "SELECT d.doc_id, d.version, d.create_time, d.update_time, c.body FROM documents d "
            + "CROSS JOIN changes c ON c.id = d.change_id WHERE d.parent = ?1"
            + (after ? " AND d.doc_id > ?2" : "") + " ORDER BY d.doc_id LIMIT ?3"
    }

    static func lastSequence(_ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT max(id) FROM changes")
        defer { select.reset() }
        guard try select.step(), !select.isNull(0) else { return 0 }
        return select.int64(0) >> 20
    }

    /// The body of a commit, inside the write transaction. Throwing rolls everything back.
    ///
    /// Each distinct path's index changes (its entries before the commit against its entries after) go into its
    /// change row as pending operations, or — when the pending operations reach the flush threshold, as a bulk
    /// commit's do at once — straight into a new run with everything pending.
    static func apply(
        _ mutations: [DocumentMutation],
        work: CommitWork,
        commitTime: Int64,
        indexIDs: IndexIDs,
        writerPending: WriterPending,
        tuning: IndexTuning,
        db: Database
    ) throws -> (CommitResult, maintain: Bool) {
        let (prepared, changes) = (work.prepared, work.changes)
        let sequence = try lastSequence(db) + 1
        let slots = changes.slot
        // Statements are taken from the connection's cache when first needed: finding one hashes its SQL, and a
        // commit of new documents never looks one up, updates or deletes.
        var selectDocument = LazyStatement(
            """
            SELECT d.version, d.create_time, c.index_keys FROM documents d CROSS JOIN changes c \
            ON c.id = d.change_id WHERE d.parent = ?1 AND d.doc_id = ?2
            """)
        // A put that may create the document tries the insert first: for a new document (an import, an `add`) that
        // is one b-tree descent instead of a failed lookup and then an insert. Only a conflict on the key is skipped.
        let insertDocument = try SQLiteStatement(
            db,
            """
            INSERT INTO documents (parent, doc_id, collection_id, version, create_time, update_time, change_id, \
            name_key) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7) ON CONFLICT (parent, doc_id) DO NOTHING
            """
        )
        func insert(_ prep: Prepared, path: String, changeID: Int64) throws -> Bool {
            insertDocument.bind(prep.parts.parent, at: 1)
            insertDocument.bind(prep.parts.id, at: 2)
            insertDocument.bind(prep.parts.collectionID, at: 3)
            insertDocument.bind(sequence, at: 4)
            insertDocument.bind(commitTime, at: 5)
            insertDocument.bind(changeID, at: 6)
            // Only nested documents are in the collection-group index (see `documents(inCollectionGroup:)`).
            insertDocument.bind(prep.parts.parent.utf8.contains(0x2F) ? EnginePath.nameKey(path) : [], at: 7)
            try insertDocument.run()
            return db.changesCount == 1
        }
        var updateDocument = LazyStatement(
            "UPDATE documents SET version = ?3, update_time = ?4, change_id = ?5 WHERE parent = ?1 AND doc_id = ?2")
        var deleteDocument = LazyStatement("DELETE FROM documents WHERE parent = ?1 AND doc_id = ?2")

        var results: [StoredDocument?] = []
        results.reserveCapacity(mutations.count)
        // Per change-log slot: the path's entries before the commit (from its first mutation) and after; and, once a
        // mutation wrote the path, its state (its change row is only inserted at the end of the commit).
        var before: [[OwnEntry]?] = Array(repeating: nil, count: changes.last.count)
        var after: [[OwnEntry]] = Array(repeating: [], count: changes.last.count)
        var written: [(createTime: Int64, entries: [OwnEntry])??] = Array(repeating: nil, count: changes.last.count)
        // Slots whose final entries are still only in `work.ownBlobs` (decoded when needed).
        var afterIsEncoded = Array(repeating: false, count: changes.last.count)
        var ids = IndexIDs.Local(indexIDs)
        for (index, (mutation, prep)) in zip(mutations, prepared).enumerated() {
            let path = mutation.path
            let slot = slots[index]
            var existing: (version: Int64, createTime: Int64, entries: [OwnEntry])?
            var inserted = false
            if let state = written[slot] {
                existing = state.map { (sequence, $0.createTime, $0.entries) }
            } else if case .put = mutation.kind, mutation.precondition.allowsAbsence,
                try insert(prep, path: path, changeID: sequence << 20 | Int64(slot))
            {
                inserted = true
            } else {
                let select = try selectDocument.get(db)
                select.bind(prep.parts.parent, at: 1)
                select.bind(prep.parts.id, at: 2)
                if try select.step() {
                    existing = (
                        select.int64(0), select.int64(1),
                        select.isNull(2) ? [] : try select.withBytes(2) { try OwnEntryList.decode($0, path: path) }
                    )
                }
                select.reset()
            }
            try mutation.precondition.check(path: path, currentVersion: existing?.version)
            if before[slot] == nil { before[slot] = existing?.entries ?? [] }

            switch mutation.kind {
            case .put(let body, _):
                // The body is stored once, in this commit's change-log row for the path.
                let changeID = sequence << 20 | Int64(slot)
                if existing != nil {
                    let update = try updateDocument.get(db)
                    update.bind(prep.parts.parent, at: 1)
                    update.bind(prep.parts.id, at: 2)
                    update.bind(sequence, at: 3)
                    update.bind(commitTime, at: 4)
                    update.bind(changeID, at: 5)
                    try update.run()
                } else if !inserted {
                    guard try insert(prep, path: path, changeID: changeID) else {
                        throw DocumentsError(.storage, "document '\(path)' appeared during its own commit")
                    }
                }
                // A prepared final put carries its list encoded; it is decoded below only if the commit needs it.
                let blob = work.ownBlobs.isEmpty ? nil : work.ownBlobs[index]
                let entries = blob == nil ? try ids.entries(prep.entries, db) : []
                if blob != nil { afterIsEncoded[slot] = true }
                after[slot] = entries
                let createTime = existing?.createTime ?? commitTime
                written[slot] = .some((createTime, entries))
                results.append(
                    StoredDocument(
                        path: path,
                        body: body,
                        version: sequence,
                        createTime: createTime,
                        updateTime: commitTime
                    )
                )
            case .delete:
                if existing != nil {
                    let delete = try deleteDocument.get(db)
                    delete.bind(prep.parts.parent, at: 1)
                    delete.bind(prep.parts.id, at: 2)
                    try delete.run()
                }
                after[slot] = []
                written[slot] = .some(nil)
                results.append(nil)
            case .check:
                // `run` takes the checks out of the commit before it gets here.
                throw DocumentsError(.storage, "internal error: a check mutation of '\(path)' reached apply")
            }
        }

        // Index operations per slot; or, when no document existed and there are enough for a run, the puts sorted
        // ahead of the transaction (`CommitWork.puts`).
        var slotOps: [(removed: [OwnEntry], added: [OwnEntry])] = []
        var operationCount = 0
        var presorted: IndexOpBuffer?
        if let puts = work.puts, puts.count >= tuning.directRunThreshold, before.allSatisfy({ $0?.isEmpty ?? true }) {
            presorted = puts
            operationCount = puts.count
        } else {
            for slot in changes.last.indices where afterIsEncoded[slot] {
                let last = changes.last[slot]
                after[slot] =
                    try work.ownBlobs[last].map { blob in
                        try blob.withUnsafeBytes { try OwnEntryList.decode($0, path: mutations[last].path) }
                    } ?? []
            }
            slotOps.reserveCapacity(changes.last.count)
            for slot in changes.last.indices {
                let difference = OwnEntryList.difference(old: before[slot] ?? [], new: after[slot])
                operationCount += difference.removed.count + difference.added.count
                slotOps.append(difference)
            }
        }
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let pendingCount = operationCount == 0 ? 0 : try writerPending.count(db, flushedThrough: flushed)
        // A bulk commit writes its operations (with everything pending) as a run at once instead of into its change
        // rows, which would then be read back by the flush and kept there for nothing. Otherwise the pending
        // operations are flushed in the background once they reach the threshold (`SQLiteIndexMaintenance`), and
        // here only when they have piled up far beyond it.
        let flushNow =
            operationCount > 0
            && (pendingCount + operationCount >= tuning.maximumPending
                || operationCount >= tuning.directRunThreshold)
        let wantsFlush = !flushNow && operationCount > 0 && pendingCount + operationCount >= tuning.flushThreshold
        var flushBuffer = IndexOpBuffer()

        let insertChange = try SQLiteStatement(
            db,
            """
            INSERT INTO changes (id, path, version, create_time, update_time, body, index_ops, index_keys) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """
        )
        var opsBlob: [UInt8] = []
        for (n, i) in changes.last.enumerated() {
            let path = mutations[i].path
            insertChange.bind(sequence << 20 | Int64(n), at: 1)
            insertChange.bind(path, at: 2)
            if let document = results[i] {
                insertChange.bind(document.version, at: 3)
                insertChange.bind(document.createTime, at: 4)
                insertChange.bind(document.updateTime, at: 5)
                insertChange.bind(document.body, at: 6)
                if !work.ownBlobs.isEmpty, let blob = work.ownBlobs[i] {
                    insertChange.bind(blob, at: 8)
                } else {
                    insertChange.bind(OwnEntryList.encode(after[n]), at: 8)
                }
            } else {
                insertChange.bindNull(at: 3)
                insertChange.bindNull(at: 4)
                // A delete's row keeps the commit's time too: retention ages the log by it.
                insertChange.bind(commitTime, at: 5)
                insertChange.bindNull(at: 6)
                insertChange.bindNull(at: 8)
            }
            if presorted != nil {
                insertChange.bindNull(at: 7)
                try insertChange.run()
                continue
            }
            let (removed, added) = slotOps[n]
            if removed.isEmpty && added.isEmpty {
                insertChange.bindNull(at: 7)
            } else if flushNow {
                insertChange.bindNull(at: 7)
                let pathSlot = flushBuffer.addPath(path.utf8)
                for entry in removed {
                    flushBuffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: false)
                }
                for entry in added {
                    flushBuffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: true)
                }
            } else if removed.isEmpty, added.count == after[n].count {
                // A new document: its operations are its own entries, stored once (in `index_keys`).
                insertChange.bind(IndexOpCodec.allOwnEntriesPut, at: 7)
            } else {
                opsBlob.removeAll(keepingCapacity: true)
                IndexOpCodec.appendVarint(UInt64(removed.count + added.count), to: &opsBlob)
                for (list, isPut) in [(removed, false), (added, true)] {
                    for entry in list {
                        opsBlob.append(isPut ? 1 : 0)
                        IndexOpCodec.appendVarint(UInt64(entry.index), to: &opsBlob)
                        IndexOpCodec.appendVarint(UInt64(entry.key.count), to: &opsBlob)
                        opsBlob.append(contentsOf: entry.key)
                    }
                }
                insertChange.bind(opsBlob, at: 7)
            }
            try insertChange.run()
        }
        if flushNow {
            let through = sequence << 20 | Int64(changes.last.count - 1)
            try SQLiteIndexRuns.flush(
                db, pendingAfter: flushed, through: through, extra: presorted ?? flushBuffer,
                encodedExtra: presorted == nil ? nil : work.encodedPuts, tuning: tuning,
                compactingPast: tuning.maximumRunsBeforeInlineMerge)
            writerPending.set(flushedThrough: through, count: 0)
        } else if operationCount > 0 {
            writerPending.set(flushedThrough: flushed, count: pendingCount + operationCount)
        }
        return (CommitResult(sequence: sequence, documents: results), flushNow || wantsFlush)
    }
}

// MARK: - Access and errors

extension SQLiteDocumentEngine {
    /// Runs a read in a snapshot of the database, synchronously, on the calling thread.
    ///
    /// The engine's reads are short and bounded (point lookups, index range scans, pages of a collection or of the
    /// change log), so they run through GRDB's synchronous `pool.read`: a read may block the calling (cooperative)
    /// thread for the duration of one SQLite read — microseconds to a few milliseconds — which GRDB documents as
    /// acceptable for short reads. The asynchronous `pool.read` would hop to a reader's dispatch queue and back, which
    /// measured 50–60 µs per call against about 10 µs for the whole synchronous point read. Readers never wait for
    /// the writer (WAL); a read waits only when every reader connection of the pool is busy.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        do {
            return try pool.read(body)
        } catch {
            throw Self.mapError(error, path: path)
        }
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .sequentiallyConsistent) {
            throw DocumentsError(
                .storage, "the documents database ('\(path)') is closed", hint: "open the engine again")
        }
    }

    /// Runs a write transaction.
    ///
    /// A small write (`inline`: a commit of at most ``inlineWriteLimit`` mutations, metadata) runs synchronously on the calling
    /// task's thread, behind an asynchronous gate that lets one task of this process at a time into SQLite: waiting
    /// for this process's other writes suspends the task instead of blocking a thread. It saves the hop to GRDB's
    /// writer queue and back (two thread wake-ups): single-document commits measured 7.6k → 13–14k/s. What still
    /// blocks the thread: the write itself (tens of microseconds; milliseconds when it flushes or merges index runs,
    /// or checkpoints), and another *process* holding the file's write lock (up to the 10-second busy timeout).
    ///
    /// A larger write (a bulk import's chunk, an index backfill or drop, which take a good fraction of a second) goes
    /// through GRDB's asynchronous `pool.write`, on GRDB's queue, so it never holds a cooperative thread that long.
    func write<T: Sendable>(inline: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpen()
        do {
            if inline {
                if !writeGate.tryLock() { await writeGate.lock() }
                defer { writeGate.unlock() }
                return try writeNow(body)
            }
            return try await pool.write(body)
        } catch let error as CancellationError {
            throw error  // GRDB rolled the transaction back: nothing was written.
        } catch {
            let mapped = Self.mapError(error, path: path)
            if mapped.code != .preconditionFailed {
                logger.warning("documents write failed", metadata: ["path": "\(path)", "error": "\(mapped)"])
            }
            throw mapped
        }
    }

    /// Commits of at most this many mutations run inline (see ``write(inline:_:)``).
    static let inlineWriteLimit = 64

    private func writeNow<T>(_ body: (Database) throws -> T) throws -> T { try pool.write(body) }

    /// Maps an error to a ``DocumentsError``: SQLite's corruption codes to `.corrupted`, other SQLite errors to
    /// `.storage`, with the original as `underlying`. (The accessors pass `CancellationError` through unmapped.)
    static func mapError(_ error: any Error, path: String? = nil) -> DocumentsError {
        if let error = error as? DocumentsError { return error }
        let file = path.map { " ('\($0)')" } ?? ""
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return DocumentsError(
                    .corrupted,
                    "the documents database\(file) is corrupted or is not a SQLite database: \(error.message ?? "")",
                    hint: "restore it from a backup, or point the documents engine at a new file",
                    underlying: error
                )
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return DocumentsError(
                    .storage,
                    "the documents database\(file) is locked: \(error.message ?? "")",
                    hint: "another process may be writing to it",
                    underlying: error
                )
            case .SQLITE_FULL:
                return DocumentsError(
                    .storage,
                    "the disk holding the documents database\(file) is full",
                    hint: "free some space and retry; nothing was written",
                    underlying: error
                )
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                return DocumentsError(
                    .storage,
                    "cannot open the documents database\(file) for writing: \(error.message ?? "")",
                    hint: "check that the directory exists and is writable",
                    underlying: error
                )
            default:
                return DocumentsError(
                    .storage,
                    "SQLite failed on the documents database\(file): \(error.message ?? "\(error.resultCode)")",
                    underlying: error
                )
            }
        }
        return DocumentsError(.storage, "the documents database\(file) failed: \(error)", underlying: error)
    }
}

/// Reads and rewrites the list of index entries a document keeps of its own: `changes.index_keys` of the change row
/// its `documents` row points at (since schema v3; the `documents` rows stay small, so inserting one dirties less of the
/// b-tree).
struct OwnIndexKeys {
    let select: SQLiteStatement
    let update: SQLiteStatement

    init(_ db: Database) throws {
        select = try SQLiteStatement(
            db,
            """
            SELECT d.change_id, c.index_keys FROM documents d CROSS JOIN changes c ON c.id = d.change_id \
            WHERE d.parent = ?1 AND d.doc_id = ?2
            """)
        update = try SQLiteStatement(db, "UPDATE changes SET index_keys = ?2 WHERE id = ?1")
    }

    /// The document's change row and own entries, or `nil` when no document is at `path`.
    func read(path: String, parts: EnginePath.Parts) throws -> (changeID: Int64, entries: [OwnEntry])? {
        select.bind(parts.parent, at: 1)
        select.bind(parts.id, at: 2)
        defer { select.reset() }
        guard try select.step() else { return nil }
        let entries = select.isNull(1) ? [] : try select.withBytes(1) { try OwnEntryList.decode($0, path: path) }
        return (select.int64(0), entries)
    }

    /// Replaces the document's own entries.
    func write(_ entries: [OwnEntry], changeID: Int64) throws {
        update.bind(changeID, at: 1)
        update.bind(OwnEntryList.encode(entries), at: 2)
        try update.run()
    }
}
