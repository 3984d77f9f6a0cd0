import Foundation
import GRDB
import Synchronization

// The index as a log-structured merge tree: Modules/Documents/README.md, "The SQLite engine's design".
// Newer data wins: pending operations over runs, a run with a larger `seq` over an older one. A removal is a
// tombstone until a merge that includes the oldest run drops it.

/// The run operations of the SQLite engine's index: flushing, merging, scanning.
enum SQLiteIndexRuns {}

extension SQLiteIndexRuns {
    /// Flushes the pending operations (change rows after `flushed_through`) plus `extra` into a new run covering
    /// up to `through`, records `through` as flushed, then merges runs by tier. Inside a write transaction.
    static func flush(
        _ db: Database, pendingAfter flushedThrough: Int64, through: Int64, extra: IndexOpBuffer?,
        encodedExtra: EncodedRun? = nil, tuning: IndexTuning, compactingPast maximumRuns: Int? = nil
    ) throws {
        try SQLiteIndexMaintenance.checkFormat(db)
        var buffer = IndexOpBuffer()
        try readPending(db, after: flushedThrough, through: through, into: &buffer)
        if buffer.isEmpty, let encodedExtra, encodedExtra.entries > 0 {
            // Nothing else pending: the run is exactly `extra`, whose blocks are encoded already.
            let insertRun = try SQLiteStatement(db, "INSERT INTO index_runs (seq, tier, entries) VALUES (?1, ?2, ?3)")
            insertRun.bind(through, at: 1)
            insertRun.bind(Int64(tuning.tier(encodedExtra.entries)), at: 2)
            insertRun.bind(encodedExtra.entries, at: 3)
            try insertRun.run()
            try EncodedBlock.insert(encodedExtra.blocks, run: db.lastInsertedRowID, db)
        } else {
            if let extra {
                if buffer.isEmpty {
                    buffer = extra
                } else {
                    // After the pending operations, so that they lose to `extra`'s on the same entry; a path's
                    // consecutive operations share one copy of it.
                    var last: (bytes: UnsafeRawBufferPointer, slot: (start: Int, count: Int))?
                    extra.forEach { index, key, path, isPut in
                        let slot: (start: Int, count: Int)
                        if let last, last.bytes.baseAddress == path.baseAddress, last.bytes.count == path.count {
                            slot = last.slot
                        } else {
                            slot = buffer.addPath(path)
                            last = (path, slot)
                        }
                        buffer.add(index: index, key: key, path: slot, isPut: isPut)
                    }
                }
            }
            buffer.sortAndCollapse()
            if !buffer.isEmpty {
                var writer = try RunWriter(db, seq: through, tuning: tuning)
                try buffer.forEach { index, key, path, isPut in
                    try writer.append(index: index, key: key, path: path, isPut: isPut)
                }
                try writer.finish(db)
            }
        }
        try setFlushedThrough(db, through)
        if try RunInfo.all(db).count > maximumRuns ?? tuning.maximumRuns { try compact(db, tuning: tuning) }
    }

    /// Adds the pending operations of the change rows in `(after, through]` to `buffer`, oldest first.
    static func readPending(_ db: Database, after: Int64, through: Int64, into buffer: inout IndexOpBuffer) throws {
        let select = try SQLiteStatement(
            db,
            """
            SELECT path, index_ops, index_keys FROM changes WHERE id > ?1 AND id <= ?2 AND index_ops IS NOT NULL \
            ORDER BY id
            """)
        defer { select.reset() }
        select.bind(after, at: 1)
        select.bind(through, at: 2)
        while try select.step() {
            let path = buffer.addPath(select.text(0).utf8)
            try select.withOptionalBytes(2) { own in
                try select.withBytes(1) { bytes in
                    try IndexOpCodec.decodeChangeOps(bytes, ownEntries: own) { index, key, isPut in
                        buffer.add(index: index, key: key, path: path, isPut: isPut)
                    }
                }
            }
        }
    }

    /// The number of pending operations in the change rows after `flushedThrough` (counted, not decoded).
    static func pendingOperationCount(_ db: Database, after flushedThrough: Int64) throws -> Int {
        let select = try SQLiteStatement(
            db, "SELECT index_ops, index_keys FROM changes WHERE id > ?1 AND index_ops IS NOT NULL")
        defer { select.reset() }
        select.bind(flushedThrough, at: 1)
        var total = 0
        while try select.step() {
            total += select.withOptionalBytes(1) { own in
                select.withBytes(0) { IndexOpCodec.changeOpCount($0, ownEntries: own) }
            }
        }
        return total
    }

    static func flushedThrough(_ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT flushed_through FROM index_state WHERE id = 0")
        defer { select.reset() }
        return try select.step() ? select.int64(0) : 0
    }

    static func setFlushedThrough(_ db: Database, _ value: Int64) throws {
        let update = try SQLiteStatement(db, "UPDATE index_state SET flushed_through = ?1 WHERE id = 0")
        update.bind(value, at: 1)
        try update.run()
    }

    /// Bumped by every change to existing runs other than a merge (dropping an index): a background merge that read
    /// its inputs under another generation is discarded.
    static func generation(_ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT generation FROM index_state WHERE id = 0")
        defer { select.reset() }
        return try select.step() ? select.int64(0) : 0
    }

    static func bumpGeneration(_ db: Database) throws {
        let update = try SQLiteStatement(db, "UPDATE index_state SET generation = generation + 1 WHERE id = 0")
        try update.run()
    }

    /// The next merge the size tiers call for, or `nil`: two neighbours where the older is of a smaller tier than the
    /// newer, or ``IndexTuning/fanIn`` neighbours of one tier (looking from the newest end, since runs can pile up
    /// anywhere while a background merge runs). Settled, older runs are of strictly bigger tiers, so there are at
    /// most as many runs as tiers. Merges take neighbours only, so the time order of runs (their precedence) is kept;
    /// a window whose newer neighbour shares its last `seq` is skipped, as the merged run would sort after it.
    /// `includesOldest`: no older run is left, so tombstones can go.
    static func plan(_ runs: [RunInfo], tuning: IndexTuning) -> (runs: [RunInfo], includesOldest: Bool)? {
        // Tiers from the sizes, not as stored: files written with other tiers settle the same way.
        let runs = runs.map { run in
            var run = run
            run.tier = tuning.tier(run.entries)
            return run
        }
        let n = runs.count
        func window(_ start: Int, _ count: Int) -> (runs: [RunInfo], includesOldest: Bool)? {
            let end = start + count
            let last = runs[start..<end].map(\.seq).max() ?? 0
            if end < n, runs[end].seq == last { return nil }
            return (Array(runs[start..<end]), start == 0)
        }
        let fanIn = max(2, tuning.fanIn)
        var i = n - 1
        while i >= 1 {
            if runs[i - 1].tier < runs[i].tier, let merge = window(i - 1, 2) { return merge }
            if i + 1 >= fanIn {
                let start = i + 1 - fanIn
                if runs[start...i].allSatisfy({ $0.tier == runs[i].tier }), let merge = window(start, fanIn) {
                    return merge
                }
            }
            i -= 1
        }
        return nil
    }

    /// Merges runs inside the current write transaction until no rule applies. Merges normally run in the background
    /// (``SQLiteIndexMaintenance``); a commit does them itself only once runs pile up past
    /// ``IndexTuning/maximumRuns`` (say, when only short-lived processes write and none stays to merge).
    static func compact(_ db: Database, tuning: IndexTuning) throws {
        while let next = plan(try RunInfo.all(db), tuning: tuning) {
            try merge(db, runs: next.runs, includesOldest: next.includesOldest, tuning: tuning)
        }
    }

    /// Merges `runs` (consecutive, oldest first) into one; tombstones go when no older run is left.
    static func merge(_ db: Database, runs: [RunInfo], includesOldest: Bool, tuning: IndexTuning) throws {
        var cursors = runs.reversed().map { RunCursor(run: $0.id, index: nil) }  // newest first: precedence order
        for i in cursors.indices { try cursors[i].start(db) }
        var writer = try RunWriter(db, seq: runs.map(\.seq).max() ?? 0, tuning: tuning)
        try mergeEntries(db, &cursors) { index, key, path, isPut in
            if !isPut, includesOldest { return true }
            try writer.append(index: index, key: key, path: path, isPut: isPut)
            return true
        }
        try writer.finish(db)
        for run in runs { try SQLiteIndexMaintenance.delete(run.id, db) }
    }

    /// Merges started cursors (in precedence order, the first winning) entry by entry, in `(index, key, path)` order
    /// (or reversed, when the cursors are), calling `body` with each distinct entry's winning operation until it
    /// returns `false` (that entry is consumed; calling again continues after it).
    static func mergeEntries(
        _ db: Database, _ cursors: inout [RunCursor],
        _ body: (Int64, UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws -> Bool
    ) throws {
        let reverse = cursors.first?.reverse ?? false
        while true {
            // The smallest (largest, reversed) entry; on ties the first cursor's, which has precedence.
            var best = -1
            for i in cursors.indices where cursors[i].isValid {
                if best < 0 {
                    best = i
                    continue
                }
                let c = Self.compare(
                    cursors[i].currentIndex, cursors[i].currentKey, cursors[i].currentPath, cursors[best].currentIndex,
                    cursors[best].currentKey, cursors[best].currentPath)
                if reverse ? c > 0 : c < 0 { best = i }
            }
            if best < 0 { return }
            let (index, key, path) = (cursors[best].currentIndex, cursors[best].currentKey, cursors[best].currentPath)
            let keepGoing = try body(index, key, path, cursors[best].currentIsPut)
            // Advance every cursor sitting on the same entry (the best one last: `key` and `path` point into it).
            for i in cursors.indices where i != best && cursors[i].isValid {
                if Self.compare(
                    cursors[i].currentIndex, cursors[i].currentKey, cursors[i].currentPath, index, key, path)
                    == 0
                {
                    try cursors[i].advance(db)
                }
            }
            try cursors[best].advance(db)
            // Stopping after the entry is consumed: a later call goes on with the next one.
            if !keepGoing { return }
        }
    }

    @inline(__always)
    static func compare(
        _ ia: Int64, _ ka: UnsafeRawBufferPointer, _ pa: UnsafeRawBufferPointer,
        _ ib: Int64, _ kb: UnsafeRawBufferPointer, _ pb: UnsafeRawBufferPointer
    ) -> Int {
        if ia != ib { return ia < ib ? -1 : 1 }
        let byKey = compareRaw(ka, kb)
        return byKey != 0 ? byKey : compareRaw(pa, pb)
    }
}
