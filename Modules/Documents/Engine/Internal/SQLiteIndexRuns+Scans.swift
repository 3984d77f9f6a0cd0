import Foundation
import GRDB

extension SQLiteIndexRuns {
    /// The last change-log id, 0 when the log is empty.
    static func maxChangeID(_ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT max(id) FROM changes")
        defer { select.reset() }
        guard try select.step(), !select.isNull(0) else { return 0 }
        return select.int64(0)
    }

    /// The entries of index `index` within the scan's bounds, pending operations and runs merged, in a read
    /// transaction (one snapshot).
    static func scan(_ db: Database, index: Int64, _ scan: IndexScan, pending: PendingIndexCache) throws -> [IndexHit] {
        var hits: [IndexHit] = []
        let limit = scan.limit ?? Int.max
        try forEachEntry(db, index: index, scan, pending: pending) { key, path in
            hits.append(IndexHit(key: [UInt8](key), path: String(decoding: path, as: UTF8.self)))
            return hits.count < limit
        }
        return hits
    }

    /// Calls `body` with each entry (key, path) of index `index` within the scan's bounds, pending operations and runs
    /// merged, in order, until it returns `false`; holds one block per run in memory, so a whole index streams
    /// through in bounded memory. The scan's limit only shapes which pending operations are read (see
    /// ``PendingIndexCache/block(index:_:flushedThrough:snapshotMax:lower:upper:limit:reverse:)``): `body` stops.
    static func forEachEntry(
        _ db: Database, index: Int64, _ scan: IndexScan, pending: PendingIndexCache,
        _ body: (_ key: UnsafeRawBufferPointer, _ path: UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        let lower: RunCursor.Bound = scan.lower.map { $0.inclusive ? .inclusive($0.key) : .exclusive($0.key) } ?? .none
        let upper: RunCursor.Bound = scan.upper.map { $0.inclusive ? .inclusive($0.key) : .exclusive($0.key) } ?? .none
        let flushed = try flushedThrough(db)
        let snapshotMax = try maxChangeID(db)
        var cursors: [RunCursor] = []
        if let block = try pending.block(
            index: index, db, flushedThrough: flushed, snapshotMax: snapshotMax, lower: lower, upper: upper,
            limit: scan.limit, reverse: scan.reverse)
        {
            cursors.append(RunCursor(memory: block, reverse: scan.reverse))
        }
        for run in try RunInfo.all(db).reversed() {
            cursors.append(RunCursor(run: run.id, index: index, reverse: scan.reverse, lower: lower, upper: upper))
        }
        for i in cursors.indices { try cursors[i].start(db) }
        try mergeEntries(db, &cursors) { _, key, path, isPut in
            isPut ? try body(key, path) : true
        }
    }
}
