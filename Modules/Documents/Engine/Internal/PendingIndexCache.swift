import Foundation
import GRDB
import Synchronization

/// This process's copy of the pending index operations (change rows after `index_state.flushed_through`), read
/// incrementally inside read transactions and kept sorted per index, so a scan merges them without touching the
/// change log again. Every scan passes its snapshot's `flushed_through` and last change id; operations newer than
/// the snapshot are ignored, and a snapshot older than the copy's flush point reads its own.
final class PendingIndexCache: Sendable {
    struct Op {
        var key: [UInt8]
        var path: [UInt8]
        var changeID: Int64
        var isPut: Bool
    }

    /// One index's operations: a sorted part and a small unsorted tail folded in when it grows.
    struct Ops {
        /// The change-log id through which this index's operations were read (indexes are read lazily, on their
        /// first scan, so a process that scans one index never holds the others').
        var loadedThrough: Int64
        var sorted: [Op] = []
        var recent: [Op] = []
    }

    struct State {
        var flushedThrough: Int64 = -1
        var byIndex: [Int64: Ops] = [:]
    }

    private let state = Mutex(State())

    /// Pending operations folded into the sorted part once the tail holds this many.
    static let tailLimit = 256

    /// The pending operations of `index` within bounds as of the snapshot, the latest per entry, as a block in
    /// `(key, path)` order; `nil` when there are none. With a `limit`, only the operations a scan returning at most
    /// `limit` entries (from the high end when `reverse`) can need: the selection stops once it holds that many puts
    /// beyond what the unsorted tail could remove, so a scan with a small limit costs no more than the limit.
    ///
    /// The change log is read outside the lock (other scans of this process go on meanwhile); what was read is
    /// added to the copy under the lock unless another scan added it first.
    func block(
        index: Int64, _ db: Database, flushedThrough: Int64, snapshotMax: Int64, lower: RunCursor.Bound,
        upper: RunCursor.Bound, limit: Int? = nil, reverse: Bool = false
    ) throws -> IndexBlock? {
        if snapshotMax <= flushedThrough { return nil }
        // `nil`: this snapshot predates a flush this process has already seen; it reads its own operations.
        let start: Int64? = state.withLock { state in
            if state.flushedThrough > flushedThrough { return nil }
            if state.flushedThrough < flushedThrough { state = State(flushedThrough: flushedThrough, byIndex: [:]) }
            return state.byIndex[index]?.loadedThrough ?? flushedThrough
        }
        var candidates: [Op]?
        if let start {
            var read = Ops(loadedThrough: start)
            if start < snapshotMax { try Self.load(db, index: index, through: snapshotMax, into: &read) }
            candidates = state.withLock { state in
                // A flush moved the copy on meanwhile: this snapshot reads its own operations (below).
                if state.flushedThrough != flushedThrough { return nil }
                var ops = state.byIndex.removeValue(forKey: index) ?? Ops(loadedThrough: flushedThrough)
                defer { state.byIndex[index] = ops }
                if ops.loadedThrough < snapshotMax {
                    // Another scan may have added part of what this one read.
                    let after = ops.loadedThrough
                    ops.recent.append(contentsOf: (read.sorted + read.recent).filter { $0.changeID > after })
                    ops.loadedThrough = snapshotMax
                    if ops.recent.count > Self.tailLimit { ops.foldTail() }
                }
                return Self.select(
                    ops, lower: lower, upper: upper, snapshotMax: snapshotMax, limit: limit, reverse: reverse)
            }
        }
        if candidates == nil {
            var own = Ops(loadedThrough: flushedThrough)
            try Self.load(db, index: index, through: snapshotMax, into: &own)
            candidates = Self.select(
                own, lower: lower, upper: upper, snapshotMax: snapshotMax, limit: limit, reverse: reverse)
        }
        guard let candidates, !candidates.isEmpty else { return nil }
        var data: [UInt8] = []
        for op in candidates {
            data.append(op.isPut ? 1 : 0)
            data.append(0)  // nothing shared with the previous key
            IndexOpCodec.appendVarint(UInt64(op.key.count), to: &data)
            data.append(contentsOf: op.key)
            data.append(0)
            IndexOpCodec.appendVarint(UInt64(op.path.count), to: &data)
            data.append(contentsOf: op.path)
        }
        return try IndexBlock(index: index, data: data)
    }

    /// Reads the operations on `index` of change rows in `(ops.loadedThrough, through]` into `ops`.
    private static func load(_ db: Database, index wanted: Int64, through: Int64, into ops: inout Ops) throws {
        let select = try SQLiteStatement(
            db,
            """
            SELECT id, path, index_ops, index_keys FROM changes WHERE id > ?1 AND id <= ?2 \
            AND index_ops IS NOT NULL ORDER BY id
            """)
        defer { select.reset() }
        select.bind(ops.loadedThrough, at: 1)
        select.bind(through, at: 2)
        var found: [Op] = []
        while try select.step() {
            let changeID = select.int64(0)
            var path: [UInt8]?
            try select.withOptionalBytes(3) { own in
                try select.withBytes(2) { bytes in
                    try IndexOpCodec.decodeChangeOps(bytes, ownEntries: own) { index, key, isPut in
                        guard index == wanted else { return }
                        if path == nil { path = Array(select.text(1).utf8) }
                        found.append(Op(key: [UInt8](key), path: path ?? [], changeID: changeID, isPut: isPut))
                    }
                }
            }
        }
        ops.recent.append(contentsOf: found)
        ops.loadedThrough = through
        if ops.recent.count > tailLimit { ops.foldTail() }
    }

    /// The operations within bounds and not newer than the snapshot, the latest per `(key, path)`, sorted. With a
    /// `limit`, the sorted part is walked from the scan's starting end only until it holds `limit` puts plus one per
    /// operation of the unsorted tail (each could turn one of them into a removal): the first `limit` entries of the
    /// scan lie within what was walked.
    static func select(
        _ ops: Ops, lower: RunCursor.Bound, upper: RunCursor.Bound, snapshotMax: Int64, limit: Int? = nil,
        reverse: Bool = false
    ) -> [Op] {
        let (first, end) = positions(in: ops.sorted, lower: lower, upper: upper)
        var found: [Op] = []
        for op in ops.recent where op.changeID <= snapshotMax && isInBounds(op.key, lower: lower, upper: upper) {
            found.append(op)
        }
        // Puts the walk must hold before it may stop (`Int.max`: no limit, walk everything in bounds).
        let wanted = limit.map { $0 <= Int.max - found.count ? $0 + found.count : Int.max } ?? Int.max
        appendLatest(
            of: ops.sorted, from: first, to: end, snapshotMax: snapshotMax, wanted: wanted, reverse: reverse,
            into: &found)
        found.sort(by: Op.precedes)
        keepLastPerEntry(&found)
        return found
    }

    /// Whether `key` lies within the bounds.
    private static func isInBounds(_ key: [UInt8], lower: RunCursor.Bound, upper: RunCursor.Bound) -> Bool {
        switch lower {
        case .none: break
        case .inclusive(let b): if compareBytes(key, b) < 0 { return false }
        case .exclusive(let b): if compareBytes(key, b) <= 0 { return false }
        }
        switch upper {
        case .none: break
        case .inclusive(let b): if compareBytes(key, b) > 0 { return false }
        case .exclusive(let b): if compareBytes(key, b) >= 0 { return false }
        }
        return true
    }

    /// The positions of `sorted` within the key bounds: `first..<end` (empty when `end` is not above `first`).
    private static func positions(
        in sorted: [Op], lower: RunCursor.Bound, upper: RunCursor.Bound
    ) -> (first: Int, end: Int) {
        var first = 0
        var end = sorted.count
        switch lower {
        case .none: break
        case .inclusive(let b): first = partition(sorted, b, orEqual: false)
        case .exclusive(let b): first = partition(sorted, b, orEqual: true)
        }
        switch upper {
        case .none: break
        case .inclusive(let b): end = partition(sorted, b, orEqual: true)
        case .exclusive(let b): end = partition(sorted, b, orEqual: false)
        }
        return (first, end)
    }

    /// The first position of `sorted` whose key is not below `bound` (`orEqual`: not above it).
    private static func partition(_ sorted: [Op], _ bound: [UInt8], orEqual: Bool) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            let c = compareBytes(sorted[mid].key, bound)
            if c < 0 || (orEqual && c == 0) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Walks `first..<end` of `sorted` from the scan's starting end, appending to `found` the latest operation of
    /// each entry not newer than the snapshot, until `wanted` of them are puts.
    private static func appendLatest(
        of sorted: [Op], from first: Int, to end: Int, snapshotMax: Int64, wanted: Int, reverse: Bool,
        into found: inout [Op]
    ) {
        var puts = 0
        if first < end {
            // Operations on one entry are neighbours (sorted by key, path, change id): the last of a group not newer
            // than the snapshot wins.
            var i = reverse ? end - 1 : first
            while i >= first, i < end, puts < wanted {
                var (groupStart, groupEnd) = (i, i + 1)
                if reverse {
                    while groupStart > first, Op.sameEntry(sorted[groupStart - 1], sorted[i]) {
                        groupStart -= 1
                    }
                } else {
                    while groupEnd < end, Op.sameEntry(sorted[groupEnd], sorted[i]) { groupEnd += 1 }
                }
                var latest: Op?
                for k in groupStart..<groupEnd where sorted[k].changeID <= snapshotMax { latest = sorted[k] }
                if let latest {
                    found.append(latest)
                    if latest.isPut { puts += 1 }
                }
                i = reverse ? groupStart - 1 : groupEnd
            }
        }
    }

    /// Keeps, of each run of operations on one entry in sorted `found`, only the last.
    private static func keepLastPerEntry(_ found: inout [Op]) {
        var write = 0
        for read in found.indices {
            if write > 0, Op.sameEntry(found[write - 1], found[read]) {
                found[write - 1] = found[read]
            } else {
                found[write] = found[read]
                write += 1
            }
        }
        found.removeLast(found.count - write)
    }
}

extension PendingIndexCache.Op {
    /// `(key, path, changeID)` order.
    static func precedes(_ a: Self, _ b: Self) -> Bool {
        let byKey = compareBytes(a.key, b.key)
        if byKey != 0 { return byKey < 0 }
        let byPath = compareBytes(a.path, b.path)
        if byPath != 0 { return byPath < 0 }
        return a.changeID < b.changeID
    }

    static func sameEntry(_ a: Self, _ b: Self) -> Bool { a.key == b.key && a.path == b.path }
}

extension PendingIndexCache.Ops {
    /// Sorts the tail and merges it into the sorted part.
    mutating func foldTail() {
        recent.sort(by: PendingIndexCache.Op.precedes)
        var merged: [PendingIndexCache.Op] = []
        merged.reserveCapacity(sorted.count + recent.count)
        var i = 0
        var j = 0
        while i < sorted.count, j < recent.count {
            if PendingIndexCache.Op.precedes(recent[j], sorted[i]) {
                merged.append(recent[j])
                j += 1
            } else {
                merged.append(sorted[i])
                i += 1
            }
        }
        merged.append(contentsOf: sorted[i...])
        merged.append(contentsOf: recent[j...])
        sorted = merged
        recent = []
    }
}
