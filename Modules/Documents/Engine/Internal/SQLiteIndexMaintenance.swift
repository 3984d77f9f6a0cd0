import Foundation
import GRDB
import Logging
import Synchronization

/// Flushes the SQLite engine's pending index operations into runs and merges runs, in the background, so commits do
/// not pay for them.
///
/// A flush reads the pending operations (those of change rows after `index_state.flushed_through`) in one read
/// transaction once there are ``IndexTuning/flushThreshold`` of them, sorts them outside any transaction, writes the
/// run's blocks in short write transactions, and puts the run in place (moving the flush point) in a last one — unless
/// the flush point or the index generation moved meanwhile (a bulk commit, a backfill, an index drop, another
/// process flushed first), in which case the run is discarded: those operations are in a run already.
///
/// A merge reads its input runs (immutable) in short read transactions and writes the merged run's blocks in short
/// write transactions of their own, between the commits of this and other processes; the merged run stays invisible
/// (`tier` -1, owned by this engine's random token under a lease that every write transaction of the run renews) until
/// one last transaction checks that the inputs are still there and puts it in their place. If another process merged
/// them first, or this engine closes, the partial run is deleted; a process that dies mid-merge leaves one that an
/// engine opening the file after its lease expired deletes. Every transaction of a flush or merge first checks that no
/// newer Suite has migrated the file; if one has, maintenance stops (``status()`` says why) instead of writing.
///
/// Work runs on a serial dispatch queue (SQLite calls block), one merge at a time per engine; ``kick()`` after a
/// flush starts it. ``finish(leaveBehind:then:)`` (from `shutdown()`) lets the work under way end, flushes what is
/// pending past a small limit, merges only while more than `maximumRuns` runs are left, and stops; async callers are resumed from the queue, so
/// no thread of Swift's cooperative pool waits. ``stop()`` (from the synchronous `close()`) abandons the current step
/// and blocks until it has ended.
final class SQLiteIndexMaintenance: Sendable {
    private let pool: DatabasePool
    private let tuning: IndexTuning
    private let logger: Logger
    /// Where flushes and merges run, one at a time (internal: tests hold it to catch work under way).
    let queue = DispatchQueue(label: "suite.documents.index-merges", qos: .utility)
    private let group = DispatchGroup()
    private let state = Mutex(State())

    private struct State {
        var running = false
        var again = false
        /// The current step is abandoned (its partial run deleted) and nothing starts again.
        var stopped = false
        /// ``finish(leaveBehind:then:)`` was called: kicks start nothing; its own work follows the work under way.
        var finishing = false
        /// Tasks waiting in ``idle()``, resumed when the work loop ends.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// The last failure of a flush or merge, until one succeeds.
        var lastError: String?
        /// A newer Suite migrated the file: this engine no longer flushes or merges.
        var superseded = false
    }

    /// This engine's token for the partial runs it writes: random, as process ids repeat across pid namespaces.
    let owner = Int64.random(in: 1...Int64.max)

    /// Output entries per read transaction (and block writes per write transaction that follows it).
    static let entriesPerStep = 16_384

    init(pool: DatabasePool, tuning: IndexTuning, logger: Logger) {
        self.pool = pool
        self.tuning = tuning
        self.logger = logger
    }

    /// Starts merging if the tiers call for it (a no-op while a merge runs: it looks again when done).
    func kick() {
        let start = state.withLock { state -> Bool in
            if state.stopped || state.finishing || state.superseded { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        group.enter()
        queue.async { [self] in
            defer { group.leave() }
            while true {
                runDueWork(flushingAt: tuning.flushThreshold)
                let (more, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.again && !state.stopped {
                        state.again = false
                        return (true, [])
                    }
                    state.running = false
                    defer { state.idleWaiters = [] }
                    return (false, state.idleWaiters)
                }
                if !more {
                    for waiter in waiters { waiter.resume() }
                    return
                }
            }
        }
    }

    /// Flushes once `minimum` operations are pending and merges until nothing is due; a failure is logged and kept
    /// for ``status()`` (the work is retried after the next flush).
    private func runDueWork(flushingAt minimum: Int) {
        if state.withLock({ $0.superseded }) { return }
        do {
            while try flushOnce(atLeast: minimum) || mergeOnce() {}
            state.withLock { $0.lastError = nil }
        } catch let error as DocumentsError where error.code == .unsupported {
            let message = "\(error.message); this process stopped flushing and merging the index"
            state.withLock { state in
                state.superseded = true
                state.lastError = message
            }
            logger.error("\(message)", metadata: ["error": "\(error)"])
        } catch {
            state.withLock { $0.lastError = "\(error)" }
            logger.warning("index merge failed; it is retried after the next flush", metadata: ["error": "\(error)"])
        }
    }

    /// Suspends the calling task until no flush or merge runs or is called for. It blocks no thread: the work loop
    /// resumes it from the maintenance queue.
    func idle() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.running { return true }
                state.idleWaiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    /// Ends maintenance gracefully: the flush or merge under way runs to its end, then the pending operations are
    /// flushed into a run if there are more than `leaveBehind`, runs are merged only while more than `maximumRuns` are
    /// left (merges merely due are left to the next process), and `last` runs on the maintenance queue (the engine
    /// closes its pool there). Kicks start nothing from the moment this is called. Suspends the caller without
    /// blocking a thread.
    func finish(leaveBehind: Int, then last: @escaping @Sendable () -> Void) async {
        state.withLock { $0.finishing = true }
        group.enter()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // The queue is serial: this runs after the work loop under way, which never stops halfway for it.
            queue.async { [self] in
                runDueWork(flushingAt: max(1, leaveBehind + 1))
                state.withLock { $0.stopped = true }
                last()
                group.leave()
                done.resume()
            }
        }
    }

    /// Stops merging and waits for the current step to end (its partial run is deleted).
    func stop() {
        state.withLock { $0.stopped = true }
        group.wait()
    }

    /// Waits until no merge is running or called for (tests).
    func waitUntilIdle() {
        group.wait()
    }

    /// Whether a flush or merge is running or called for, and the last failure since one last succeeded.
    func status() -> (running: Bool, lastError: String?) {
        state.withLock { ($0.running, $0.lastError) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }
    /// Whether ``finish(leaveBehind:then:)`` was called (internal: tests wait for a shutdown to get here).
    var isFinishing: Bool { state.withLock { $0.finishing } }

    /// Writes the pending operations as a run when there are at least `minimum` of them (``IndexTuning/flushThreshold``
    /// in the background); `false` when there are fewer (or the engine is closing).
    private func flushOnce(atLeast minimum: Int) throws -> Bool {
        if isStopped { return false }
        let tuning = tuning
        guard var read = try pendingSnapshot(atLeast: minimum) else { return false }
        read.buffer.sortAndCollapse()
        let run = try reserveRun(seq: read.through)
        let owner = owner
        _ = blocks.take()
        do {
            var writer = RunWriter(run: run, tuning: tuning) { [self] index, lastKey, lastPath, data in
                blocks.append(index: index, lastKey: lastKey, lastPath: lastPath, data: data)
            }
            var stopped = false
            try read.buffer.forEach { index, key, path, isPut in
                if stopped { return }
                try writer.append(index: index, key: key, path: path, isPut: isPut)
                if blocks.count >= Self.blocksPerStep {
                    if isStopped {
                        stopped = true
                        return
                    }
                    try writeBlocks(run)
                }
            }
            if stopped {
                try discard(run)
                return false
            }
            try writer.closeBlock()
            try writeBlocks(run)
            let entries = writer.entries
            let placed = try pool.write { db in
                try Self.checkFormat(db)
                guard try SQLiteIndexRuns.flushedThrough(db) == read.flushed,
                    try SQLiteIndexRuns.generation(db) == read.generation
                else { return false }
                if entries == 0 {
                    try Self.delete(run, db)
                } else {
                    try Self.place(run, owner: owner, entries: entries, tuning: tuning, db)
                }
                try SQLiteIndexRuns.setFlushedThrough(db, read.through)
                return true
            }
            if !placed { try discard(run) }
            return true
        } catch {
            try? discard(run)
            throw error
        }
    }

    /// The pending operations of one snapshot, with the flush point and generation they were read under; `nil` when
    /// there are fewer than `minimum`.
    private func pendingSnapshot(
        atLeast minimum: Int
    ) throws -> (flushed: Int64, through: Int64, generation: Int64, buffer: IndexOpBuffer)? {
        try pool.read { db in
            let flushed = try SQLiteIndexRuns.flushedThrough(db)
            let through = try SQLiteIndexRuns.maxChangeID(db)
            guard through > flushed else { return nil }
            var buffer = IndexOpBuffer()
            try SQLiteIndexRuns.readPending(db, after: flushed, through: through, into: &buffer)
            guard buffer.count >= minimum else { return nil }
            return (flushed, through, try SQLiteIndexRuns.generation(db), buffer)
        }
    }

    /// How long a partial run's lease lasts, in milliseconds. Every write transaction of the run renews it, and the
    /// longest wait between two of them is a wait for the write lock, which SQLite's busy timeout ends after 10 s.
    static let leaseMilliseconds: Int64 = 30_000
    /// A run's lease is renewed at least this often while it is written, even by steps that write no block.
    static let renewMilliseconds: Int64 = 5_000

    /// Wall-clock milliseconds: leases are compared by other processes.
    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Renews the lease of this engine's partial run `run`; throws when the run is no longer there (an engine that
    /// opened the file after the lease expired deleted it).
    static func renewLease(_ run: Int64, owner: Int64, _ db: Database) throws {
        let update = try SQLiteStatement(
            db, "UPDATE index_runs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2 AND tier < 0")
        update.bind(run, at: 1)
        update.bind(owner, at: 2)
        update.bind(nowMilliseconds() + leaseMilliseconds, at: 3)
        try update.run()
        guard db.changesCount == 1 else { throw lostRun(run) }
    }

    static func lostRun(_ run: Int64) -> DocumentsError {
        DocumentsError(
            .storage,
            "the partial index run \(run) this process was writing is gone (its lease expired and another process "
                + "deleted it); the run is discarded and the work retried")
    }

    /// The schema versions this code knows: a file holding another one was migrated by a newer Suite.
    static let knownFormats = Set(SQLiteDocumentEngine.migrator.migrations)

    /// Throws ``DocumentsError/Code-swift.struct/unsupported`` when a newer Suite migrated the file after this engine
    /// opened it (its rows may have a format this code misreads). Called inside every flush and merge transaction.
    static func checkFormat(_ db: Database) throws {
        let select = try SQLiteStatement(db, "SELECT identifier FROM grdb_migrations")
        defer { select.reset() }
        while try select.step() {
            let format = select.text(0)
            guard knownFormats.contains(format) else {
                throw DocumentsError(
                    .unsupported,
                    "the documents database was migrated to format '\(format)' by a newer version of Suite",
                    hint: "restart this process with the newer Suite")
            }
        }
    }

    /// Block writes per write transaction of a background flush or merge.
    static let blocksPerStep = 256

    /// Finished blocks waiting for their write transaction (used by the maintenance queue only).
    private let blocks = PendingBlocks()

    final class PendingBlocks: @unchecked Sendable {
        private(set) var list: [EncodedBlock] = []
        var count: Int { list.count }
        /// When the lease of the run being written was last renewed (wall-clock milliseconds).
        var renewedAt: Int64 = 0

        func append(
            index: Int64, lastKey: UnsafeRawBufferPointer, lastPath: UnsafeRawBufferPointer,
            data: UnsafeRawBufferPointer
        ) {
            list.append(EncodedBlock(index: index, lastKey: lastKey, lastPath: lastPath, data: data))
        }

        func take() -> [EncodedBlock] {
            defer { list.removeAll() }
            return list
        }
    }

    /// Writes the blocks waiting in ``blocks`` into `run`, in one write transaction that renews the run's lease; with
    /// no block waiting, renews the lease alone if ``renewMilliseconds`` have passed.
    private func writeBlocks(_ run: Int64) throws {
        let pending = blocks.take()
        let now = Self.nowMilliseconds()
        if pending.isEmpty, now - blocks.renewedAt < Self.renewMilliseconds { return }
        blocks.renewedAt = now
        let owner = owner
        try pool.write { db in
            try Self.checkFormat(db)
            try Self.renewLease(run, owner: owner, db)
            try EncodedBlock.insert(pending, run: run, db)
        }
    }

    /// Inserts an invisible run row (`tier` -1, owned by this engine, leased) for a flush or merge to fill, in its
    /// own transaction.
    private func reserveRun(seq: Int64) throws -> Int64 {
        let owner = owner
        blocks.renewedAt = Self.nowMilliseconds()
        return try pool.write { db in try Self.reserveRun(seq: seq, owner: owner, db) }
    }

    /// Inserts an invisible run row (see above) inside the current write transaction; returns its id.
    static func reserveRun(seq: Int64, owner: Int64, _ db: Database) throws -> Int64 {
        try checkFormat(db)
        let insert = try SQLiteStatement(
            db, "INSERT INTO index_runs (seq, tier, entries, owner, lease_until) VALUES (?1, -1, 0, ?2, ?3)")
        insert.bind(seq, at: 1)
        insert.bind(owner, at: 2)
        insert.bind(nowMilliseconds() + leaseMilliseconds, at: 3)
        try insert.run()
        return db.lastInsertedRowID
    }

    /// Makes this engine's filled run visible, in its size tier; throws (rolling the transaction back) when the run
    /// is no longer this engine's partial run.
    static func place(_ run: Int64, owner: Int64, entries: Int64, tuning: IndexTuning, _ db: Database) throws {
        let update = try SQLiteStatement(
            db,
            """
            UPDATE index_runs SET tier = ?2, entries = ?3, owner = NULL, lease_until = NULL \
            WHERE id = ?1 AND owner = ?4 AND tier < 0
            """)
        update.bind(run, at: 1)
        update.bind(Int64(tuning.tier(entries)), at: 2)
        update.bind(entries, at: 3)
        update.bind(owner, at: 4)
        try update.run()
        guard db.changesCount == 1 else { throw lostRun(run) }
    }

    /// Performs the next merge the tiers call for; `false` when there is none (or the engine is closing). With
    /// `newerThan`, it is a merge nested in a longer one (see ``build(_:inputs:includesOldest:generation:nests:)``):
    /// of runs of the lowest two tiers whose `seq` is later, if one is due.
    private func mergeOnce(newerThan: Int64? = nil) throws -> Bool {
        if isStopped { return false }
        _ = blocks.take()
        // Plan and reserve the output run in one transaction, so no run can slip in between.
        let (owner, tuning) = (owner, tuning)
        let planned: (inputs: [RunInfo], includesOldest: Bool, run: Int64, generation: Int64)? = try pool.write { db in
            var runs = try RunInfo.all(db)
            if let newerThan { runs = runs.filter { $0.seq > newerThan } }
            // A closing engine leaves the merges that are merely due to the next process (queries stay bounded by
            // `maximumRuns`); it does only those a commit would otherwise do inline.
            if isFinishing, runs.count <= tuning.maximumRuns { return nil }
            guard var next = SQLiteIndexRuns.plan(runs, tuning: tuning) else { return nil }
            if newerThan != nil {
                if next.runs.contains(where: { tuning.tier($0.entries) > 1 }) { return nil }
                next.includesOldest = false
            }
            let generation = try SQLiteIndexRuns.generation(db)
            let run = try Self.reserveRun(seq: next.runs.map(\.seq).max() ?? 0, owner: owner, db)
            return (next.runs, next.includesOldest, run, generation)
        }
        guard let planned else { return false }
        blocks.renewedAt = Self.nowMilliseconds()
        do {
            let complete = try build(
                planned.run, inputs: planned.inputs, includesOldest: planned.includesOldest,
                generation: planned.generation,
                nests: newerThan == nil && planned.inputs.contains { tuning.tier($0.entries) >= 2 })
            if !complete {
                try discard(planned.run)
                return false
            }
            return true
        } catch {
            try? discard(planned.run)
            throw error
        }
    }

    /// Writes the merged run; `false` when stopped or the inputs vanished (the caller discards it). A long merge
    /// (`nests`) does the small merges that commits make due meanwhile between its steps: otherwise small runs pile
    /// up until it ends, bulk commits wait for them, and they merge in worse shapes (more rewriting).
    private func build(_ run: Int64, inputs: [RunInfo], includesOldest: Bool, generation: Int64, nests: Bool)
        throws -> Bool
    {
        let newestInput = inputs.map(\.seq).max() ?? 0
        var nextNestedCheck = ContinuousClock.now
        var writer = RunWriter(run: run, tuning: tuning) { [self] index, lastKey, lastPath, data in
            blocks.append(index: index, lastKey: lastKey, lastPath: lastPath, data: data)
        }
        var cursors = inputs.reversed().map { RunCursor(run: $0.id, index: nil) }  // newest first: precedence order
        var started = false
        var finished = false
        while !finished {
            if isStopped { return false }
            try pool.read { db in
                if !started {
                    for i in cursors.indices { try cursors[i].start(db) }
                    started = true
                }
                var count = 0
                try SQLiteIndexRuns.mergeEntries(db, &cursors) { index, key, path, isPut in
                    if isPut || !includesOldest {
                        try writer.append(index: index, key: key, path: path, isPut: isPut)
                    }
                    count += 1
                    return count < Self.entriesPerStep
                }
                finished = !cursors.contains { $0.isValid }
            }
            if finished { try writer.closeBlock() }
            try writeBlocks(run)
            if nests, !finished, ContinuousClock.now >= nextNestedCheck {
                while try mergeOnce(newerThan: newestInput) {}
                blocks.renewedAt = 0  // this run's lease is renewed at its next step
                nextNestedCheck = ContinuousClock.now + .milliseconds(200)
            }
        }
        let entries = writer.entries
        let (tuning, owner) = (tuning, owner)
        return try pool.write { db in
            try Self.checkFormat(db)
            let present = Set(try RunInfo.all(db).map(\.id))
            guard inputs.allSatisfy({ present.contains($0.id) }), try SQLiteIndexRuns.generation(db) == generation
            else { return false }
            for input in inputs {
                guard try Self.delete(input.id, db) else {
                    throw DocumentsError(.storage, "index run \(input.id), an input of a merge, vanished during it")
                }
            }
            if entries == 0 {
                try Self.delete(run, db)
            } else {
                try Self.place(run, owner: owner, entries: entries, tuning: tuning, db)
            }
            return true
        }
    }

    private func discard(_ run: Int64) throws {
        _ = try pool.write { db in try Self.delete(run, db) }
    }

    /// Deletes run `run` and its blocks; whether its row was there.
    @discardableResult
    static func delete(_ run: Int64, _ db: Database) throws -> Bool {
        let deleteBlocks = try SQLiteStatement(db, "DELETE FROM index_blocks WHERE run = ?1")
        deleteBlocks.bind(run, at: 1)
        try deleteBlocks.run()
        let deleteRun = try SQLiteStatement(db, "DELETE FROM index_runs WHERE id = ?1")
        deleteRun.bind(run, at: 1)
        try deleteRun.run()
        return db.changesCount == 1
    }

    /// Deletes the partial runs whose lease has expired: their flush or merge ended without placing them (at open).
    static func removeAbandonedRuns(_ db: Database) throws {
        let select = try SQLiteStatement(
            db, "SELECT id FROM index_runs WHERE tier < 0 AND (lease_until IS NULL OR lease_until < ?1)")
        select.bind(nowMilliseconds(), at: 1)
        var abandoned: [Int64] = []
        while try select.step() { abandoned.append(select.int64(0)) }
        select.reset()
        for run in abandoned { try delete(run, db) }
    }
}
