import Foundation
import GRDB

/// How long the SQLite engine keeps change-log records: a record is pruned once it is older than ``maximumAge``
/// *and* not among the latest ``minimumCount`` records (and the index has flushed it; see the module README).
///
/// ```swift
/// let engine = try SQLiteDocumentEngine(
///     path: "documents.sqlite", changeLogRetention: ChangeLogRetention(maximumAge: .seconds(86_400)))
/// ```
public struct ChangeLogRetention: Sendable, Hashable {
    /// Records younger than this are kept. Default: 7 days, so a client or listener offline for a week catches up
    /// from the log instead of taking a new snapshot.
    public var maximumAge: Duration
    /// At least this many of the latest records are kept, however old (at least 1). Default: 100,000 — a few MiB of
    /// small documents, enough for a busy store's day or so however seldom it is written to.
    public var minimumCount: Int

    /// Creates a retention (the defaults are ``standard``'s).
    public init(maximumAge: Duration = .seconds(7 * 86_400), minimumCount: Int = 100_000) {
        self.maximumAge = maximumAge
        self.minimumCount = minimumCount
    }

    /// 7 days and at least the latest 100,000 records.
    public static let standard = ChangeLogRetention()

    /// Throws ``DocumentsError/Code-swift.struct/invalidValue`` naming the setting that is out of range.
    package func validate() throws {
        guard minimumCount >= 1 else {
            throw DocumentsError(
                .invalidValue, "the change log's minimum count must be at least 1, not \(minimumCount)",
                hint: "keep at least the latest change, e.g. ChangeLogRetention(minimumCount: 1000)")
        }
        guard maximumAge >= .zero else {
            throw DocumentsError(
                .invalidValue, "the change log's maximum age must not be negative (\(maximumAge))",
                hint: "e.g. ChangeLogRetention(maximumAge: .seconds(86_400))")
        }
    }
}

/// The change log's size and horizon (`DocumentEngine/changeLogStatus()`, `suite docs stats`).
public struct ChangeLogStatus: Sendable, Hashable {
    /// Records held, including those kept only because a document's current body lives in them.
    public var records: Int
    /// The retained horizon: `DocumentEngine/changes(after:limit:)` answers every sequence at or after it; before
    /// it, it throws ``DocumentsError/Code-swift.struct/resyncRequired``. 0 while nothing was pruned.
    public var horizon: Int64
    /// The last commit's sequence.
    public var lastSequence: Int64

    /// Creates a status.
    public init(records: Int, horizon: Int64, lastSequence: Int64) {
        self.records = records
        self.horizon = horizon
        self.lastSequence = lastSequence
    }
}

extension DocumentsError {
    /// The error of a change-log read that starts before the retained horizon (every engine that prunes its log).
    package static func resyncRequired(after sequence: Int64, horizon: Int64) -> DocumentsError {
        DocumentsError(
            .resyncRequired,
            "changes after sequence \(sequence) are no longer in the change log (it keeps those after \(horizon))",
            hint:
                "take a fresh snapshot: read lastSequence(), re-read the documents you follow, then follow changes after that sequence"
        )
    }
}

extension SQLiteDocumentEngine {
    /// The metadata keys of the pruning state (decimal text): the horizon sequence, and the sweep's position among
    /// the rows kept below it.
    static let horizonKey = "sqlite.changes.horizon"
    static let sweepKey = "sqlite.changes.sweep"
    /// A commit whose sequence is a multiple of this (or that writes many documents) runs a prune step afterwards.
    static let pruneInterval: Int64 = 64
    /// The most rows one prune step visits (one write transaction).
    static let pruneStepRows = 20_000

    /// The change log's records, horizon and last sequence.
    @_spi(Engine) public func changeLogStatus() async throws -> ChangeLogStatus? {
        try checkOpen()
        do {
            return try await pool.read { db in
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM changes") ?? 0
                return ChangeLogStatus(
                    records: count, horizon: try Self.counter(Self.horizonKey, db),
                    lastSequence: try Self.lastSequence(db))
            }
        } catch {
            throw Self.mapError(error, path: path)
        }
    }

    /// Prunes the change log down to ``changeLogRetention`` (in steps of at most 20,000 rows, each its own write
    /// transaction, at most `steps` of them) and returns the number of rows removed. Commits run a step now and then,
    /// and ``shutdown()`` runs them until done; call it to prune at a time of your choosing.
    @discardableResult
    public func pruneChangeLog(steps: Int = 50) async throws -> Int {
        try await pruneChangeLog(now: Int64(Date().timeIntervalSince1970 * 1_000_000), steps: steps)
    }

    /// ``pruneChangeLog(steps:)`` with the present given in microseconds since the epoch (tests).
    func pruneChangeLog(now: Int64, steps: Int) async throws -> Int {
        var removed = 0
        for _ in 0..<max(1, steps) {
            let retention = changeLogRetention
            let (count, more) = try await write(inline: false) { db in
                try Self.pruneStep(db, retention: retention, now: now, limit: Self.pruneStepRows)
            }
            removed += count
            if !more { break }
        }
        return removed
    }

    /// Throws ``DocumentsError/Code-swift.struct/resyncRequired`` when changes after `sequence` were pruned.
    static func checkHorizon(after sequence: Int64, _ db: Database) throws {
        let horizon = try counter(horizonKey, db)
        if horizon > 0, sequence < horizon { throw DocumentsError.resyncRequired(after: sequence, horizon: horizon) }
    }

    /// One step: moves the horizon forward over the commits retention lets go (never past the index's flush point,
    /// never the last commit), deleting their rows that no document points at; then sweeps part of the rows kept
    /// below the horizon for ones whose document has been rewritten since. Returns the rows deleted and whether work
    /// is left. The rows of one commit share its time, so a commit is old as a whole.
    static func pruneStep(_ db: Database, retention: ChangeLogRetention, now: Int64, limit: Int) throws
        -> (removed: Int, more: Bool)
    {
        let lastID = try SQLiteIndexRuns.maxChangeID(db)
        guard lastID > 0 else { return (0, false) }
        let horizon = try counter(horizonKey, db)
        let threshold = now - microseconds(retention.maximumAge)
        var removed = 0
        var more = false
        var advanced = false
        let cut = try pruneCut(db, horizon: horizon, lastID: lastID, retention: retention, threshold: threshold)
        if cut > horizon {
            var passed: [(id: Int64, path: String)] = []
            var newHorizon = cut
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, path, update_time FROM changes WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
                arguments: [(horizon + 1) << 20, (cut + 1) << 20, limit])
            var scanned = 0
            while let row = try rows.next() {
                scanned += 1
                let id: Int64 = row[0]
                if let time: Int64 = row[2], time >= threshold {
                    newHorizon = (id >> 20) - 1
                    break
                }
                passed.append((id, row[1]))
                // The scan stopped inside a commit: the horizon covers it, and the sweep its rows beyond the scan.
                if scanned == limit {
                    newHorizon = id >> 20
                    more = true
                }
            }
            if newHorizon > horizon {
                try setCounter(horizonKey, newHorizon, db)
                removed += try deleteUnreferenced(passed.filter { $0.id >> 20 <= newHorizon }, db)
                advanced = true
            }
        }
        // Sweep the rows kept below the old horizon (current bodies then) for those no document points at now; only
        // while the horizon moves, so an idle store does no work.
        if horizon > 0 && advanced {
            let sweep = try counter(sweepKey, db)
            let sweepLimit = max(1, limit / 4)
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, path FROM changes WHERE id > ? AND id < ? ORDER BY id LIMIT ?",
                arguments: [sweep, (horizon + 1) << 20, sweepLimit])
            removed += try deleteUnreferenced(rows.map { ($0[0], $0[1]) }, db)
            try setCounter(sweepKey, rows.count == sweepLimit ? (rows.last?[0] as Int64?) ?? 0 : 0, db)
        }
        return (removed, more)
    }

    /// The last sequence the horizon may reach now: before the last commit, the index's flush point (the pending
    /// operations live in the rows after it), the latest `minimumCount` records, and — checked first, cheaply — the
    /// first commit after the horizon must be old. `horizon` when nothing may go.
    private static func pruneCut(
        _ db: Database, horizon: Int64, lastID: Int64, retention: ChangeLogRetention, threshold: Int64
    ) throws -> Int64 {
        var cut = min((lastID >> 20) - 1, (try SQLiteIndexRuns.flushedThrough(db) >> 20) - 1)
        guard cut > horizon else { return horizon }
        let first = try Row.fetchOne(
            db, sql: "SELECT update_time FROM changes WHERE id >= ? ORDER BY id LIMIT 1",
            arguments: [(horizon + 1) << 20])
        if let time: Int64 = first?[0], time >= threshold { return horizon }
        guard
            let oldest = try Int64.fetchOne(
                db, sql: "SELECT id FROM changes ORDER BY id DESC LIMIT 1 OFFSET ?",
                arguments: [retention.minimumCount - 1])
        else { return horizon }
        cut = min(cut, (oldest >> 20) - 1)
        return max(cut, horizon)
    }

    /// Deletes the change rows among `rows` that no document points at; returns how many.
    private static func deleteUnreferenced(_ rows: [(id: Int64, path: String)], _ db: Database) throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let select = try SQLiteStatement(db, "SELECT change_id FROM documents WHERE parent = ?1 AND doc_id = ?2")
        let delete = try SQLiteStatement(db, "DELETE FROM changes WHERE id = ?1")
        var removed = 0
        for row in rows {
            guard let parts = try? EnginePath.split(document: row.path) else { continue }
            select.bind(parts.parent, at: 1)
            select.bind(parts.id, at: 2)
            let current: Int64? = try select.step() ? select.int64(0) : nil
            select.reset()
            if current == row.id { continue }
            delete.bind(row.id, at: 1)
            try delete.run()
            removed += 1
        }
        return removed
    }

    static func counter(_ key: String, _ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT value FROM metadata WHERE meta_key = ?1")
        defer { select.reset() }
        select.bind(key, at: 1)
        guard try select.step() else { return 0 }
        return Int64(String(decoding: select.bytes(0), as: UTF8.self)) ?? 0
    }

    private static func setCounter(_ key: String, _ value: Int64, _ db: Database) throws {
        let upsert = try SQLiteStatement(db, "INSERT OR REPLACE INTO metadata (meta_key, value) VALUES (?1, ?2)")
        upsert.bind(key, at: 1)
        upsert.bind(Array(String(value).utf8), at: 2)
        try upsert.run()
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? Int64.max / 2 : product + attoseconds / 1_000_000_000_000
    }
}
