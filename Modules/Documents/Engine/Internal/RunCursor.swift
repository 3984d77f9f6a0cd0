import Foundation
import GRDB

/// Reads one run's entries in order — of one index within bounds (scans), or of every index (merges) — one block at
/// a time, each block found by one seek of the `index_blocks` primary key.
struct RunCursor {
    enum Bound {
        case none
        case inclusive([UInt8])
        case exclusive([UInt8])
    }

    let run: Int64
    /// `nil`: every index (merges read whole runs forward).
    let index: Int64?
    let reverse: Bool
    let lower: Bound
    let upper: Bound

    private(set) var block: IndexBlock?
    private(set) var position = 0
    /// The current entry, kept as plain values and pointers into the block's bytes (valid while ``isValid``).
    private(set) var isValid = false
    private(set) var currentIndex: Int64 = 0
    private(set) var currentKey = UnsafeRawBufferPointer(start: nil, count: 0)
    private(set) var currentPath = UnsafeRawBufferPointer(start: nil, count: 0)
    private(set) var currentIsPut = false
    private var fenceKey: [UInt8] = []
    private var fencePath: [UInt8] = []

    init(run: Int64, index: Int64?, reverse: Bool = false, lower: Bound = .none, upper: Bound = .none) {
        self.run = run
        self.index = index
        self.reverse = reverse
        self.lower = lower
        self.upper = upper
    }

    /// A cursor over one block held in memory (the pending operations of a scan), already in bounds.
    init(memory: IndexBlock, reverse: Bool) {
        run = -1
        index = memory.index
        self.reverse = reverse
        lower = .none
        upper = .none
        memoryBlock = memory
    }

    private var memoryBlock: IndexBlock?

    /// Points the current-entry fields at `position` of `block`, or marks the cursor ended.
    @inline(__always)
    private mutating func refresh() {
        guard let block else {
            isValid = false
            return
        }
        let entry = block.entries[position]
        let base = block.bytes.base
        isValid = true
        currentIndex = block.index
        currentKey = UnsafeRawBufferPointer(start: base + Int(entry.keyStart), count: Int(entry.keyCount))
        currentPath = UnsafeRawBufferPointer(start: base + Int(entry.pathStart), count: Int(entry.pathCount))
        currentIsPut = entry.isPut
    }

    /// Positions on the first entry in bounds (the last, when reversed).
    mutating func start(_ db: Database) throws {
        if let memoryBlock {
            self.memoryBlock = nil
            if !memoryBlock.entries.isEmpty {
                position = reverse ? memoryBlock.entries.count - 1 : 0
                block = memoryBlock
            }
            refresh()
            return
        }
        try fetch(db, first: true)
        try settle(db)
    }

    mutating func advance(_ db: Database) throws {
        guard isValid, let count = block?.entries.count else { return }
        try step(db, count: count)
        try settle(db)
    }

    /// Moves one entry in scan order: within the block, or to the next block.
    private mutating func step(_ db: Database, count: Int) throws {
        if reverse {
            if position > 0 {
                position -= 1
                refresh()
            } else {
                try fetch(db, first: false)
            }
        } else {
            if position + 1 < count {
                position += 1
                refresh()
            } else {
                try fetch(db, first: false)
            }
        }
    }

    /// Skips entries before the starting bound; ends the cursor past the closing bound.
    private mutating func settle(_ db: Database) throws {
        let (startBound, endBound) = reverse ? (upper, lower) : (lower, upper)
        if case .none = startBound, case .none = endBound { return }
        while isValid {
            if Self.outside(currentKey, endBound, below: reverse) {
                block = nil
                refresh()
                return
            }
            if !Self.outside(currentKey, startBound, below: !reverse) { return }
            guard let count = block?.entries.count else { return }
            try step(db, count: count)
        }
    }

    /// Whether `key` lies beyond `bound` on the side given: `below` — less than a lower bound; otherwise greater
    /// than an upper bound.
    @inline(__always)
    private static func outside(_ key: UnsafeRawBufferPointer, _ bound: Bound, below: Bool) -> Bool {
        switch bound {
        case .none: return false
        case .inclusive(let b):
            let c = b.withUnsafeBytes { compareRaw(key, $0) }
            return below ? c < 0 : c > 0
        case .exclusive(let b):
            let c = b.withUnsafeBytes { compareRaw(key, $0) }
            return below ? c <= 0 : c >= 0
        }
    }

    /// Loads the first block in scan order (`first`) or the block after the current one; ends the cursor when there
    /// is none.
    private mutating func fetch(_ db: Database, first: Bool) throws {
        if run < 0 {
            block = nil
            refresh()
            return
        }
        let select: SQLiteStatement
        if let index {
            if first && reverse {
                try loadLastBlock(db, index: index)
                return
            }
            select = first ? try firstBlockSelect(db) : try nextBlockSelect(db)
            select.bind(index, at: 2)
        } else {
            select = try runBlockSelect(db, first: first)
        }
        select.bind(run, at: 1)
        _ = try load(select)
    }

    /// Loads the block of `index` where keys cross the upper bound, or its last block: where a reverse scan starts.
    private mutating func loadLastBlock(_ db: Database, index: Int64) throws {
        switch upper {
        case .none:
            break
        case .inclusive(let key), .exclusive(let key):
            let op: String
            if case .inclusive = upper { op = ">" } else { op = ">=" }
            let select = try SQLiteStatement(
                db,
                "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                    + "AND last_key \(op) ?3 ORDER BY last_key, last_path LIMIT 1")
            select.bind(key, at: 3)
            select.bind(run, at: 1)
            select.bind(index, at: 2)
            if try load(select) { return }
        }
        let last = try SQLiteStatement(
            db,
            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                + "ORDER BY last_key DESC, last_path DESC LIMIT 1")
        last.bind(run, at: 1)
        last.bind(index, at: 2)
        _ = try load(last)
    }

    /// Selects (given the run and index) the block where keys reach the lower bound, or the index's first block:
    /// where a forward scan starts.
    private func firstBlockSelect(_ db: Database) throws -> SQLiteStatement {
        switch lower {
        case .none:
            return try SQLiteStatement(
                db,
                "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                    + "ORDER BY last_key, last_path LIMIT 1")
        case .inclusive(let key), .exclusive(let key):
            let op: String
            if case .inclusive = lower { op = ">=" } else { op = ">" }
            let select = try SQLiteStatement(
                db,
                "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                    + "AND last_key \(op) ?3 ORDER BY last_key, last_path LIMIT 1")
            select.bind(key, at: 3)
            return select
        }
    }

    /// Selects (given the run and index) the block after the fence, the current block's last entry, in scan order.
    private func nextBlockSelect(_ db: Database) throws -> SQLiteStatement {
        let select = try SQLiteStatement(
            db,
            reverse
                ? "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                    + "AND (last_key, last_path) < (?3, ?4) ORDER BY last_key DESC, last_path DESC LIMIT 1"
                : "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                    + "AND (last_key, last_path) > (?3, ?4) ORDER BY last_key, last_path LIMIT 1")
        select.bind(fenceKey, at: 3)
        fencePath.withUnsafeBytes { select.bindText($0, at: 4) }
        return select
    }

    /// Selects (given the run) its first block of all indexes, or the one after the fence: merges read whole runs.
    private func runBlockSelect(_ db: Database, first: Bool) throws -> SQLiteStatement {
        if first {
            return try SQLiteStatement(
                db,
                "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 "
                    + "ORDER BY idx, last_key, last_path LIMIT 1")
        }
        let select = try SQLiteStatement(
            db,
            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 "
                + "AND (idx, last_key, last_path) > (?2, ?3, ?4) ORDER BY idx, last_key, last_path LIMIT 1")
        select.bind(currentIndex, at: 2)
        select.bind(fenceKey, at: 3)
        fencePath.withUnsafeBytes { select.bindText($0, at: 4) }
        return select
    }

    /// Steps `select` once and takes its row as the current block; `false` (and no block) when there is none.
    private mutating func load(_ select: SQLiteStatement) throws -> Bool {
        defer { select.reset() }
        guard try select.step() else {
            block = nil
            refresh()
            return false
        }
        let index = select.int64(0)
        let loaded = try select.withBytes(3) { try IndexBlock(index: index, data: $0) }
        guard !loaded.entries.isEmpty else { throw IndexOpCodec.corrupted("empty block") }
        fenceKey = select.bytes(1)
        fencePath = select.bytes(2)
        position = reverse ? loaded.entries.count - 1 : 0
        block = loaded
        refresh()
        return true
    }
}
