import Foundation
import GRDB

/// Writes one run: entries must arrive in `(index, key, path)` order.
struct RunWriter {
    let run: Int64
    let tuning: IndexTuning
    private let emit: Emit
    private let block = ByteBuffer()
    private var blockIndex: Int64 = -1
    /// The previous entry's key, then its path.
    private let last = ByteBuffer()
    private var lastKeyCount = 0
    private(set) var entries: Int64 = 0

    /// Creates the run's row (`seq` is the last change-log id its data covers); blocks go straight into `db`.
    init(_ db: Database, seq: Int64, tuning: IndexTuning) throws {
        self.tuning = tuning
        let insertRun = try SQLiteStatement(db, "INSERT INTO index_runs (seq, tier, entries) VALUES (?1, 0, 0)")
        insertRun.bind(seq, at: 1)
        try insertRun.run()
        run = db.lastInsertedRowID
        let insertBlock = try SQLiteStatement(db, Self.insertBlockSQL)
        let run = run
        emit = { index, lastKey, lastPath, data in
            try Self.insert(insertBlock, run: run, index: index, lastKey: lastKey, lastPath: lastPath, data: data)
        }
        block.reserve(tuning.blockBytes + 256)
    }

    /// A writer for a run whose row exists already; each finished block goes to `emit` (a background merge collects
    /// them and writes them in transactions of their own).
    init(run: Int64, tuning: IndexTuning, emit: @escaping Emit) {
        self.run = run
        self.tuning = tuning
        self.emit = emit
        block.reserve(tuning.blockBytes + 256)
    }

    typealias Emit = (
        _ index: Int64, _ lastKey: UnsafeRawBufferPointer, _ lastPath: UnsafeRawBufferPointer,
        _ data: UnsafeRawBufferPointer
    ) throws -> Void

    static let insertBlockSQL =
        "INSERT INTO index_blocks (run, idx, last_key, last_path, data) VALUES (?1, ?2, ?3, ?4, ?5)"

    static func insert(
        _ statement: SQLiteStatement, run: Int64, index: Int64, lastKey: UnsafeRawBufferPointer,
        lastPath: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) throws {
        statement.bind(run, at: 1)
        statement.bind(index, at: 2)
        statement.bind(lastKey, at: 3)
        statement.bindText(lastPath, at: 4)
        statement.bind(data, at: 5)
        try statement.run()
    }

    mutating func append(
        index: Int64, key: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer, isPut: Bool
    ) throws {
        if index != blockIndex || block.count >= tuning.blockBytes {
            try closeBlock()
            blockIndex = index
        }
        // Keys and paths share a prefix with the entry before them in the block (sorted neighbours often do: a
        // collection's paths, a map value's leading fields); only the rest is written.
        let first = block.count == 0
        let previousKey = UnsafeRawBufferPointer(start: last.base, count: lastKeyCount)
        let previousPath = UnsafeRawBufferPointer(start: last.base + lastKeyCount, count: last.count - lastKeyCount)
        let sharedKey = first ? 0 : Self.sharedPrefix(previousKey, key)
        let sharedPath = first ? 0 : Self.sharedPrefix(previousPath, path)
        block.reserve(block.count + key.count + path.count + 21)
        block.appendByte(isPut ? 1 : 0)
        block.appendVarint(UInt64(sharedKey))
        block.appendVarint(UInt64(key.count - sharedKey))
        block.append(UnsafeRawBufferPointer(rebasing: key[sharedKey...]))
        block.appendVarint(UInt64(sharedPath))
        block.appendVarint(UInt64(path.count - sharedPath))
        block.append(UnsafeRawBufferPointer(rebasing: path[sharedPath...]))
        last.count = 0
        last.append(key)
        last.append(path)
        lastKeyCount = key.count
        entries += 1
    }

    @inline(__always)
    static func sharedPrefix(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count, 255)
        var i = 0
        while i < n, a[i] == b[i] { i += 1 }
        return i
    }

    /// Hands the block being filled to `emit`.
    mutating func closeBlock() throws {
        if block.count == 0 { return }
        try emit(
            blockIndex, UnsafeRawBufferPointer(start: last.base, count: lastKeyCount),
            UnsafeRawBufferPointer(start: last.base + lastKeyCount, count: last.count - lastKeyCount),
            UnsafeRawBufferPointer(start: block.base, count: block.count))
        block.count = 0
    }

    /// Writes the last block and the run's entry count; removes the run's row when it holds nothing.
    mutating func finish(_ db: Database) throws {
        try closeBlock()
        if entries == 0 {
            let delete = try SQLiteStatement(db, "DELETE FROM index_runs WHERE id = ?1")
            delete.bind(run, at: 1)
            try delete.run()
            return
        }
        let update = try SQLiteStatement(
            db, "UPDATE index_runs SET entries = ?2, tier = ?3 WHERE id = ?1")
        update.bind(run, at: 1)
        update.bind(entries, at: 2)
        update.bind(Int64(tuning.tier(entries)), at: 3)
        try update.run()
        guard db.changesCount == 1 else { throw SQLiteIndexMaintenance.lostRun(run) }
    }

    /// The blocks of a run holding `buffer`'s operations (sorted and collapsed), encoded without a database: a bulk
    /// commit prepared ahead (``SQLiteDocumentEngine/prepareCommit(_:)-(BulkPuts)``) has them ready for its
    /// transaction, which then only inserts rows.
    static func encode(_ buffer: IndexOpBuffer, tuning: IndexTuning) -> EncodedRun {
        var blocks: [EncodedBlock] = []
        var writer = RunWriter(run: 0, tuning: tuning) { index, lastKey, lastPath, data in
            blocks.append(EncodedBlock(index: index, lastKey: lastKey, lastPath: lastPath, data: data))
        }
        // Collecting blocks cannot fail.
        try? buffer.forEach { index, key, path, isPut in
            try writer.append(index: index, key: key, path: path, isPut: isPut)
        }
        try? writer.closeBlock()
        return EncodedRun(blocks: blocks, entries: writer.entries)
    }
}
