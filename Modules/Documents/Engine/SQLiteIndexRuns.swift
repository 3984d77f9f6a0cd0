import Foundation
import GRDB
import Synchronization

// The SQLite engine's secondary indexes, stored as a log-structured merge tree inside the database file.
//
// An index entry is `(idx, key, path)`: the index name's integer id, the order-preserving key and the document path.
// Entries live in two places, both inside SQLite transactions (so a crash never loses or half-writes one):
//
// - **Pending operations.** A small commit stores its entry changes (puts and removals) in its own change-log rows
//   (`changes.index_ops`), which it writes anyway: a commit dirties no index page at all. Rows after
//   `index_state.flushed_through` are pending. Each process keeps the pending operations it has read in memory
//   (``PendingIndexCache``), sorted per index, and merges them into every scan.
// - **Runs.** When the pending operations pass ``IndexTuning/flushThreshold``, a background flush sorts them and
//   writes them as a new immutable *run* (a commit that brings ``IndexTuning/directRunThreshold`` operations, as a
//   bulk import's does, writes its own run at once): rows of `index_blocks`, each block a few KiB of consecutive
//   entries of one index, keyed by its last entry, so a scan finds its first block with one b-tree seek and reads
//   entries in order. Runs are merged in the background (``SQLiteIndexMaintenance``) by size tiers, so their number
//   stays logarithmic in the number of entries.
//
// Why not one SQLite row per entry: an order document has 17 entries at random places in a large b-tree, so a
// single-document commit dirtied ~17 pages (68 KiB of log per commit) and a bulk import of 5,000 documents rewrote
// nearly every page of the index; SQLite's own sorted insert costs ~1.2 µs per entry, over 20 µs per document. Runs
// write each entry a few times, sequentially, at tens of nanoseconds each.
//
// Newer data wins: pending operations over runs, and a run with a larger `seq` (the last change-log id it covers)
// over an older one. A removal is a tombstone until a merge that includes the oldest run drops it.

/// The sizes that shape the SQLite engine's index (see the comment at the top of this file). Tests shrink them to
/// make every commit flush and merge.
struct IndexTuning: Sendable {
    /// Pending operations that start a flush into a run, in the background; also the size of the smallest run tier.
    /// Each process keeps the pending operations in memory (about 20 MiB per 131,072 for order-shaped documents) and
    /// reads them from the change log on its first scan (tens of milliseconds at most). Measured against 32,768 and
    /// 65,536: fewer merge levels made single-document commits ~25% and bulk imports ~30% faster.
    var flushThreshold = 131_072
    /// Pending operations past which a commit flushes them itself instead of waiting for the background flush
    /// (which holds them back only while it writes a run, or when it keeps failing).
    var maximumPending: Int { flushThreshold * 2 }
    /// A commit bringing this many operations writes them as a run directly (with everything pending).
    var directRunThreshold = 8_192
    /// How many runs of one size tier are merged into one of the next. Against 4: a 100k-document import rewrites
    /// half as many entries in merges (measured 39.6k → 42k docs/s); a scan seeks in up to 7 runs per tier instead
    /// of 3.
    var fanIn = 8
    /// Past this many runs a bulk commit waits for the background merges (at most ``maximumMergeWait``) before it
    /// writes; see ``SQLiteDocumentEngine``'s backpressure.
    var maximumRuns = 24
    /// The longest a commit waits for the background merges while there are more than ``maximumRuns`` runs.
    var maximumMergeWait = Duration.milliseconds(250)
    /// Past this many runs a commit merges them itself, in its transaction: only when background merges cannot keep
    /// up at all (they keep failing, or no process stays to merge).
    var maximumRunsBeforeInlineMerge: Int { maximumRuns * 4 }
    /// A block is closed once its data reaches this many bytes.
    var blockBytes = 4_000
    /// The most pending operations a graceful shutdown leaves behind; past it, it flushes them into a run first. The
    /// same size as ``directRunThreshold``, the size a run is worth writing at: a process that wrote a few documents
    /// ends without writing a run, and the next one reads at most this many operations from the change log (a few
    /// milliseconds) instead of up to ``maximumPending``.
    var leaveBehind = 8_192
    /// The most operations one run of a backfill (``SQLiteDocumentEngine/addIndexEntries(_:)``) or a rebuild holds:
    /// larger ones are written as several runs, so memory stays bounded (and a buffer's 32-bit arena offsets never
    /// wrap).
    var backfillChunk = 131_072
    /// The most entries a verification holds in memory at once: past it, it checks the documents in partitions.
    var verificationChunk = 262_144

    static let standard = IndexTuning()

    /// The size tier of a run of `entries` entries: 0 below `fanIn × directRunThreshold`, then one more per factor
    /// of `fanIn`. A bulk import's runs (85,000 entries per 5,000 order documents) and the background flush's (about
    /// `flushThreshold`) are tier 1, and eight of them merge into a tier 2 run. Tier 0 used to reach up to
    /// `fanIn × flushThreshold`, so an import's merged run of eight chunks stayed in tier 0 with the next chunks' and
    /// was rewritten with them: 1.96M entries rewritten per 100,000 imported documents instead of 1.36M.
    func tier(_ entries: Int64) -> Int {
        var tier = 0
        var limit = Int64(directRunThreshold) * Int64(fanIn)
        while entries >= limit, tier < 30 {
            tier += 1
            limit *= Int64(fanIn)
        }
        return tier
    }
}

/// The run operations of the SQLite engine's index: flushing, merging, scanning.
enum SQLiteIndexRuns {}

// MARK: - Flat operation buffer

/// Index operations in one flat byte arena (keys and paths), so sorting tens of thousands of them moves plain
/// integers instead of retaining and releasing arrays.
struct IndexOpBuffer {
    /// 48 bytes, so sorting moves little. Arena offsets are 32-bit: a buffer holds at most 4 GiB of keys and paths.
    struct Op {
        /// The key's first 16 bytes, big-endian, zero-padded: most comparisons end here.
        var prefix: UInt64
        var prefix2: UInt64
        var index: Int64
        var keyStart: UInt32
        var keyCount: UInt32
        var pathStart: UInt32
        var pathCount: UInt32
        var order: UInt32
        var isPut: Bool
        /// The key bytes every key of this index in the buffer shares, which the prefixes skip (at most 65,535).
        var skip: UInt16
    }

    private(set) var ops: [Op] = []
    private(set) var arena: [UInt8] = []
    /// The arena size past which a backfill or a rebuild writes what it holds as a run and starts a new buffer, far
    /// below the 4 GiB its 32-bit offsets reach.
    static let chunkBytes = 256 << 20

    init() {}
    /// Paths were added in ascending order (as a bulk import's sorted chunk adds them): a path stored later is then
    /// never smaller, so the sort can order equal keys by where their paths are stored instead of comparing paths.
    private var pathsAscending = true
    private var lastPath: (start: Int, count: Int)?
    /// Sorted and collapsed, with nothing added since: sorting again does nothing.
    private var isSorted = false

    var count: Int { ops.count }
    var isEmpty: Bool { ops.isEmpty }

    mutating func reserveCapacity(operations: Int, bytes: Int) {
        ops.reserveCapacity(operations)
        arena.reserveCapacity(bytes)
    }

    /// Stores a path's UTF-8 once; pass the result to ``add(index:key:path:isPut:)``.
    mutating func addPath<S: Sequence>(_ utf8: S) -> (start: Int, count: Int) where S.Element == UInt8 {
        let start = arena.count
        arena.append(contentsOf: utf8)
        let path = (start: start, count: arena.count - start)
        if pathsAscending, let last = lastPath {
            pathsAscending = arena.withUnsafeBytes { bytes in
                memcmpSlices(bytes.baseAddress!, last.start, last.count, path.start, path.count) <= 0
            }
        }
        lastPath = path
        return path
    }

    mutating func add(index: Int64, key: UnsafeRawBufferPointer, path: (start: Int, count: Int), isPut: Bool) {
        let keyStart = arena.count
        arena.append(contentsOf: key)
        add(index: index, storedKey: (keyStart, key.count), path: path, isPut: isPut)
    }

    /// A buffer whose arena starts with `bytes`, so that keys already there are added by position
    /// (``add(index:storedKey:path:isPut:)``) instead of copied one by one.
    init(arena bytes: [UInt8], operations: Int, bytes extra: Int) {
        arena = bytes
        arena.reserveCapacity(bytes.count + extra)
        ops.reserveCapacity(operations)
    }

    /// Adds an operation whose key is stored in the arena already, at `storedKey`.
    mutating func add(index: Int64, storedKey: (start: Int, count: Int), path: (start: Int, count: Int), isPut: Bool) {
        isSorted = false
        ops.append(
            Op(
                prefix: 0, prefix2: 0, index: index,
                keyStart: UInt32(truncatingIfNeeded: storedKey.start),
                keyCount: UInt32(truncatingIfNeeded: storedKey.count),
                pathStart: UInt32(truncatingIfNeeded: path.start),
                pathCount: UInt32(truncatingIfNeeded: path.count), order: UInt32(truncatingIfNeeded: ops.count),
                isPut: isPut, skip: 0))
    }

    mutating func add(index: Int64, key: [UInt8], path: (start: Int, count: Int), isPut: Bool) {
        key.withUnsafeBytes { add(index: index, key: $0, path: path, isPut: isPut) }
    }

    static func prefix(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var value: UInt64 = 0
        let n = min(8, key.count)
        for i in 0..<8 { value = value << 8 | UInt64(i < n ? key[i] : 0) }
        return value
    }

    /// Sets each operation's two prefixes to the 16 bytes of its key after the bytes that every key of its index in
    /// the buffer shares (a map's first field name, a string's common start): comparisons then mostly end at the
    /// prefixes instead of comparing the keys' bytes. Within one index every key skips as many bytes, so the order of
    /// the prefixes is the order of the keys.
    private static func setComparisonPrefixes(_ ops: inout [Op], _ base: UnsafeRawPointer) {
        var low = Int64.max
        var high = Int64.min
        for op in ops {
            low = min(low, op.index)
            high = max(high, op.index)
        }
        // Per index: the start of its first key and how many bytes all its keys share (-1: no key seen yet). Index
        // ids are small integers close to one another, so an array usually does instead of a dictionary.
        let (span, overflow) = high.subtractingReportingOverflow(low)
        let dense = !overflow && span < Int64(max(256, ops.count))
        var denseShared = [(start: Int, length: Int)](repeating: (0, -1), count: dense ? Int(span) + 1 : 0)
        var sparseShared: [Int64: (start: Int, length: Int)] = [:]
        func narrow(_ shared: inout (start: Int, length: Int), _ op: Op) {
            if shared.length < 0 {
                shared = (Int(op.keyStart), Int(op.keyCount))
            } else if shared.length > 0 {
                shared.length = commonPrefixLength(
                    base + shared.start, base + Int(op.keyStart), min(shared.length, Int(op.keyCount)))
            }
        }
        for op in ops {
            if dense {
                narrow(&denseShared[Int(op.index - low)], op)
            } else {
                narrow(&sparseShared[op.index, default: (0, -1)], op)
            }
        }
        for i in ops.indices {
            let op = ops[i]
            let shared = dense ? denseShared[Int(op.index - low)].length : sparseShared[op.index]?.length ?? 0
            let skip = min(shared, Int(UInt16.max))
            let key = UnsafeRawBufferPointer(start: base + Int(op.keyStart) + skip, count: Int(op.keyCount) - skip)
            ops[i].skip = UInt16(skip)
            ops[i].prefix = Self.prefix(key)
            ops[i].prefix2 = key.count > 8 ? Self.prefix(UnsafeRawBufferPointer(rebasing: key[8...])) : 0
        }
    }

    /// Sorts by `(index, key, path)` and keeps, of several operations on one entry, the one added last.
    mutating func sortAndCollapse() {
        if ops.count <= 1 || isSorted { return }
        defer { isSorted = true }
        let pathsAscending = pathsAscending
        arena.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            Self.setComparisonPrefixes(&ops, base)
            func compareKeys(_ a: Op, _ b: Op) -> Int {
                if a.index != b.index { return a.index < b.index ? -1 : 1 }
                if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
                if a.prefix2 != b.prefix2 { return a.prefix2 < b.prefix2 ? -1 : 1 }
                // The same index skips the same bytes. Equal (zero-padded) prefixes with one key ending within them:
                // it is a prefix of the other, so the shorter key comes first (equal lengths: equal keys).
                let (restA, restB) = (Int(a.keyCount) - Int(a.skip), Int(b.keyCount) - Int(b.skip))
                if restA <= 16 || restB <= 16 { return restA - restB }
                return memcmpSlices(base, Int(a.keyStart), Int(a.keyCount), Int(b.keyStart), Int(b.keyCount))
            }
            func compareEntry(_ a: Op, _ b: Op) -> Int {
                let byKey = compareKeys(a, b)
                if byKey != 0 { return byKey }
                return memcmpSlices(base, Int(a.pathStart), Int(a.pathCount), Int(b.pathStart), Int(b.pathCount))
            }
            if pathsAscending {
                // Equal paths are stored next to each other, so storage order is path order (see `pathsAscending`).
                ops.sort { a, b in
                    let c = compareKeys(a, b)
                    if c != 0 { return c < 0 }
                    return a.pathStart != b.pathStart ? a.pathStart < b.pathStart : a.order < b.order
                }
            } else {
                ops.sort { a, b in
                    let c = compareEntry(a, b)
                    return c != 0 ? c < 0 : a.order < b.order
                }
            }
            var write = 0
            for read in ops.indices {
                if write > 0, compareEntry(ops[write - 1], ops[read]) == 0 {
                    ops[write - 1] = ops[read]
                } else {
                    ops[write] = ops[read]
                    write += 1
                }
            }
            ops.removeLast(ops.count - write)
        }
    }

    /// Calls `body` with each operation's insertion position (0 for the first ``add(index:key:path:isPut:)``), index,
    /// key and kind, in the buffer's order.
    func forEachOperation(_ body: (Int, Int64, UnsafeRawBufferPointer, Bool) throws -> Void) rethrows {
        try arena.withUnsafeBytes { bytes in
            for op in ops {
                let key =
                    bytes.baseAddress.map {
                        UnsafeRawBufferPointer(start: $0 + Int(op.keyStart), count: Int(op.keyCount))
                    } ?? UnsafeRawBufferPointer(start: nil, count: 0)
                try body(Int(op.order), op.index, key, op.isPut)
            }
        }
    }

    /// Calls `body` with each operation's index, key, path and kind, in the buffer's order.
    func forEach(
        _ body: (Int64, UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) throws -> Void
    ) rethrows {
        try arena.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else {
                for op in ops {
                    try body(
                        op.index, UnsafeRawBufferPointer(start: nil, count: 0), .init(start: nil, count: 0), op.isPut)
                }
                return
            }
            for op in ops {
                try body(
                    op.index, UnsafeRawBufferPointer(start: base + Int(op.keyStart), count: Int(op.keyCount)),
                    UnsafeRawBufferPointer(start: base + Int(op.pathStart), count: Int(op.pathCount)), op.isPut)
            }
        }
    }
}

/// How many leading bytes `a` and `b` share, looking at most at `limit` bytes.
@inline(__always)
private func commonPrefixLength(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ limit: Int) -> Int {
    var n = 0
    while n + 8 <= limit {
        let x =
            a.loadUnaligned(fromByteOffset: n, as: UInt64.self) ^ b.loadUnaligned(fromByteOffset: n, as: UInt64.self)
        if x != 0 { return n + UInt64(littleEndian: x).trailingZeroBitCount / 8 }
        n += 8
    }
    while n < limit, a.load(fromByteOffset: n, as: UInt8.self) == b.load(fromByteOffset: n, as: UInt8.self) { n += 1 }
    return n
}

@inline(__always)
private func memcmpSlices(_ base: UnsafeRawPointer, _ aStart: Int, _ aCount: Int, _ bStart: Int, _ bCount: Int) -> Int {
    let n = min(aCount, bCount)
    if n > 0 {
        let r = memcmp(base + aStart, base + bStart, n)
        if r != 0 { return Int(r) }
    }
    return aCount - bCount
}

/// Bytewise comparison of two buffers, a prefix before its extensions.
@inline(__always)
func compareRaw(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let r = memcmp(pa, pb, n)
        if r != 0 { return Int(r) }
    }
    return a.count - b.count
}

// MARK: - Encodings

/// Varints and the two encodings of index operations: a change row's `index_ops` and a block's `data`.
enum IndexOpCodec {
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// Reads a varint at `offset` (advancing it); `nil` when the bytes end first or it overflows.
    @inline(__always)
    static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    static func corrupted(_ what: String) -> DocumentsError {
        DocumentsError(
            .corrupted, "the documents database's index data is corrupted (\(what))",
            hint: "restore the database from a backup")
    }

    /// `index_ops` of a change row whose operations are exactly its own entries (`index_keys`), each a put: a new
    /// document's (since schema v5). A count of zero is never written otherwise (no operations is NULL), so the two
    /// bytes cannot be read as a list of operations.
    static let allOwnEntriesPut: [UInt8] = [0x00, 0x01]

    static func isAllOwnEntriesPut(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count == 2 && bytes[0] == 0x00 && bytes[1] == 0x01
    }

    /// A change row's operations: a varint count, then per operation a kind byte (1 put, 0 removal), the index id
    /// (varint), the key's length (varint) and the key; or ``allOwnEntriesPut``, when they are the row's own entries
    /// (`ownEntries`, in ``OwnEntryList``'s encoding). The path is the row's.
    static func decodeChangeOps(
        _ bytes: UnsafeRawBufferPointer, ownEntries: UnsafeRawBufferPointer?,
        _ body: (_ index: Int64, _ key: UnsafeRawBufferPointer, _ isPut: Bool) -> Void
    ) throws {
        var offset = 0
        if isAllOwnEntriesPut(bytes) {
            guard let own = ownEntries, let count = varint(own, &offset) else { throw corrupted("own entries") }
            for _ in 0..<count {
                guard let index = varint(own, &offset), index <= UInt64(Int64.max),
                    let keyCount = varint(own, &offset), keyCount <= UInt64(own.count - offset)
                else { throw corrupted("own entries") }
                body(Int64(index), UnsafeRawBufferPointer(rebasing: own[offset..<offset + Int(keyCount)]), true)
                offset += Int(keyCount)
            }
            return
        }
        guard let count = varint(bytes, &offset) else { throw corrupted("operation count") }
        for _ in 0..<count {
            guard offset < bytes.count else { throw corrupted("operation") }
            let isPut = bytes[offset] == 1
            offset += 1
            guard let index = varint(bytes, &offset), index <= UInt64(Int64.max),
                let keyCount = varint(bytes, &offset), keyCount <= UInt64(bytes.count - offset)
            else { throw corrupted("operation") }
            body(Int64(index), UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(keyCount)]), isPut)
            offset += Int(keyCount)
        }
    }

    /// The number of operations in a change row's `index_ops` (with its own entries, for ``allOwnEntriesPut``).
    static func changeOpCount(_ bytes: UnsafeRawBufferPointer, ownEntries: UnsafeRawBufferPointer?) -> Int {
        var offset = 0
        let counted = isAllOwnEntriesPut(bytes) ? (ownEntries ?? UnsafeRawBufferPointer(start: nil, count: 0)) : bytes
        return varint(counted, &offset).map { Int(min($0, UInt64(Int.max))) } ?? 0
    }
}

/// A block's bytes at a fixed address for the block's life, so cursors keep plain pointers to their current entry.
final class BlockBytes {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(copying source: UnsafeRawBufferPointer) {
        count = source.count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, source.count), alignment: 8)
        if let from = source.baseAddress, source.count > 0 { base.copyMemory(from: from, byteCount: source.count) }
    }

    /// Uninitialized bytes, for the caller to fill.
    init(capacity: Int) {
        count = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, capacity), alignment: 8)
    }

    deinit { base.deallocate() }

    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}

/// A growable byte buffer at a raw address, for the run writer's hot appends (no copy-on-write checks).
final class ByteBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    func reserve(_ needed: Int) {
        if needed <= capacity { return }
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        bigger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    @inline(__always)
    func appendByte(_ byte: UInt8) {
        reserve(count + 1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(count + bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            appendByte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        appendByte(UInt8(value))
    }
}

/// One decoded block: its bytes and where each entry's key and path lie in them.
struct IndexBlock {
    struct Entry {
        var keyStart: Int32
        var keyCount: Int32
        var pathStart: Int32
        var pathCount: Int32
        var isPut: Bool
    }
    var index: Int64
    var bytes: BlockBytes
    var entries: [Entry]

    /// Decodes block data: per entry a kind byte (1 put, 0 tombstone); the key as the length it shares with the
    /// previous entry's key (varint), the length of the rest (varint) and the rest; the path the same way. Full keys
    /// and paths are rebuilt side by side in the block's bytes.
    init(index: Int64, data: UnsafeRawBufferPointer) throws {
        self.index = index
        // Pass 1: check the structure and size the rebuilt bytes. Pass 2: copy each shared prefix from the previous
        // entry's rebuilt bytes (an earlier, distinct region) and the rest from the data.
        var total = 0
        var count = 0
        var offset = 0
        var previousKey = 0
        var previousPath = 0
        func part(_ previous: inout Int, _ what: String) throws -> (shared: Int, rest: Int, restStart: Int) {
            guard let shared = IndexOpCodec.varint(data, &offset), shared <= UInt64(previous),
                let rest = IndexOpCodec.varint(data, &offset), rest <= UInt64(data.count - offset)
            else { throw IndexOpCodec.corrupted("block \(what)") }
            let restStart = offset
            offset += Int(rest)
            previous = Int(shared) + Int(rest)
            return (Int(shared), Int(rest), restStart)
        }
        while offset < data.count {
            offset += 1
            _ = try part(&previousKey, "key")
            _ = try part(&previousPath, "path")
            total += previousKey + previousPath
            count += 1
        }
        let storage = BlockBytes(capacity: total)
        let out = storage.base
        let source = data.baseAddress ?? UnsafeRawPointer(out)  // only read when some bytes are copied
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        offset = 0
        previousKey = 0
        previousPath = 0
        var written = 0
        var last = Entry(keyStart: 0, keyCount: 0, pathStart: 0, pathCount: 0, isPut: false)
        while offset < data.count {
            let isPut = data[offset] == 1
            offset += 1
            let key = try part(&previousKey, "key")
            let keyStart = written
            if key.shared > 0 { (out + written).copyMemory(from: out + Int(last.keyStart), byteCount: key.shared) }
            written += key.shared
            if key.rest > 0 { (out + written).copyMemory(from: source + key.restStart, byteCount: key.rest) }
            written += key.rest
            let path = try part(&previousPath, "path")
            let pathStart = written
            if path.shared > 0 {
                (out + written).copyMemory(from: out + Int(last.pathStart), byteCount: path.shared)
            }
            written += path.shared
            if path.rest > 0 {
                (out + written).copyMemory(from: source + path.restStart, byteCount: path.rest)
            }
            written += path.rest
            last = Entry(
                keyStart: Int32(keyStart), keyCount: Int32(key.shared + key.rest), pathStart: Int32(pathStart),
                pathCount: Int32(path.shared + path.rest), isPut: isPut)
            entries.append(last)
        }
        bytes = storage
        self.entries = entries
    }

    init(index: Int64, data: [UInt8]) throws {
        try self = data.withUnsafeBytes { try IndexBlock(index: index, data: $0) }
    }
}

// MARK: - Writing runs

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

/// A run's block, encoded (``RunWriter``), waiting for its row.
struct EncodedBlock: Sendable {
    var index: Int64
    var lastKey: [UInt8]
    var lastPath: [UInt8]
    var data: [UInt8]

    init(
        index: Int64, lastKey: UnsafeRawBufferPointer, lastPath: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer
    ) {
        self.index = index
        self.lastKey = [UInt8](lastKey)
        self.lastPath = [UInt8](lastPath)
        self.data = [UInt8](data)
    }

    /// Inserts `blocks` as rows of run `run`.
    static func insert(_ blocks: [EncodedBlock], run: Int64, _ db: Database) throws {
        let insert = try SQLiteStatement(db, RunWriter.insertBlockSQL)
        for block in blocks {
            try block.lastKey.withUnsafeBytes { lastKey in
                try block.lastPath.withUnsafeBytes { lastPath in
                    try block.data.withUnsafeBytes { data in
                        try RunWriter.insert(
                            insert, run: run, index: block.index, lastKey: lastKey, lastPath: lastPath, data: data)
                    }
                }
            }
        }
    }
}

/// A whole run's blocks, encoded ahead of its transaction (``RunWriter/encode(_:tuning:)``).
struct EncodedRun: Sendable {
    var blocks: [EncodedBlock]
    var entries: Int64
}

// MARK: - Reading runs

/// A run's row.
struct RunInfo {
    var id: Int64
    var seq: Int64
    var tier: Int
    var entries: Int64

    /// The number of visible runs.
    static func count(_ db: Database) throws -> Int {
        let select = try SQLiteStatement(db, "SELECT count(*) FROM index_runs WHERE tier >= 0")
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : 0
    }

    /// Every run, oldest first (the order of precedence, newest winning, is the reverse).
    static func all(_ db: Database) throws -> [RunInfo] {
        // A run being built by a background merge (tier -1) is invisible until it replaces its inputs.
        let select = try SQLiteStatement(
            db, "SELECT id, seq, tier, entries FROM index_runs WHERE tier >= 0 ORDER BY seq, id")
        defer { select.reset() }
        var runs: [RunInfo] = []
        while try select.step() {
            runs.append(
                RunInfo(id: select.int64(0), seq: select.int64(1), tier: Int(select.int64(2)), entries: select.int64(3))
            )
        }
        return runs
    }
}

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
        try settle(db)
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

    private mutating func fetch(_ db: Database, first: Bool) throws {
        if run < 0 {
            block = nil
            refresh()
            return
        }
        let select: SQLiteStatement
        if let index {
            if first {
                if reverse {
                    // The block where keys cross the upper bound, or the last block.
                    switch upper {
                    case .none:
                        select = try SQLiteStatement(
                            db,
                            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                                + "ORDER BY last_key DESC, last_path DESC LIMIT 1")
                    case .inclusive(let key), .exclusive(let key):
                        let op: String
                        if case .inclusive = upper { op = ">" } else { op = ">=" }
                        select = try SQLiteStatement(
                            db,
                            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                                + "AND last_key \(op) ?3 ORDER BY last_key, last_path LIMIT 1")
                        select.bind(key, at: 3)
                        select.bind(run, at: 1)
                        select.bind(index, at: 2)
                        if try load(select) { return }
                        let last = try SQLiteStatement(
                            db,
                            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                                + "ORDER BY last_key DESC, last_path DESC LIMIT 1")
                        last.bind(run, at: 1)
                        last.bind(index, at: 2)
                        _ = try load(last)
                        return
                    }
                } else {
                    switch lower {
                    case .none:
                        select = try SQLiteStatement(
                            db,
                            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                                + "ORDER BY last_key, last_path LIMIT 1")
                    case .inclusive(let key), .exclusive(let key):
                        let op: String
                        if case .inclusive = lower { op = ">=" } else { op = ">" }
                        select = try SQLiteStatement(
                            db,
                            "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                                + "AND last_key \(op) ?3 ORDER BY last_key, last_path LIMIT 1")
                        select.bind(key, at: 3)
                    }
                }
            } else {
                select = try SQLiteStatement(
                    db,
                    reverse
                        ? "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                            + "AND (last_key, last_path) < (?3, ?4) ORDER BY last_key DESC, last_path DESC LIMIT 1"
                        : "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 AND idx = ?2 "
                            + "AND (last_key, last_path) > (?3, ?4) ORDER BY last_key, last_path LIMIT 1")
                select.bind(fenceKey, at: 3)
                fencePath.withUnsafeBytes { select.bindText($0, at: 4) }
            }
            select.bind(index, at: 2)
        } else {
            if first {
                select = try SQLiteStatement(
                    db,
                    "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 "
                        + "ORDER BY idx, last_key, last_path LIMIT 1")
            } else {
                select = try SQLiteStatement(
                    db,
                    "SELECT idx, last_key, last_path, data FROM index_blocks WHERE run = ?1 "
                        + "AND (idx, last_key, last_path) > (?2, ?3, ?4) ORDER BY idx, last_key, last_path LIMIT 1")
                select.bind(currentIndex, at: 2)
                select.bind(fenceKey, at: 3)
                fencePath.withUnsafeBytes { select.bindText($0, at: 4) }
            }
        }
        select.bind(run, at: 1)
        _ = try load(select)
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

// MARK: - Merging runs

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

// MARK: - Pending operations

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
        func inBounds(_ key: [UInt8]) -> Bool {
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
        // The first position whose key is not below `bound` (`orEqual`: not above it).
        func partition(_ bound: [UInt8], orEqual: Bool) -> Int {
            var low = 0
            var high = ops.sorted.count
            while low < high {
                let mid = (low + high) / 2
                let c = compareBytes(ops.sorted[mid].key, bound)
                if c < 0 || (orEqual && c == 0) { low = mid + 1 } else { high = mid }
            }
            return low
        }
        // The sorted part's positions within the key bounds: `first..<end`.
        var first = 0
        var end = ops.sorted.count
        switch lower {
        case .none: break
        case .inclusive(let b): first = partition(b, orEqual: false)
        case .exclusive(let b): first = partition(b, orEqual: true)
        }
        switch upper {
        case .none: break
        case .inclusive(let b): end = partition(b, orEqual: true)
        case .exclusive(let b): end = partition(b, orEqual: false)
        }
        var found: [Op] = []
        for op in ops.recent where op.changeID <= snapshotMax && inBounds(op.key) { found.append(op) }
        // Puts the walk must hold before it may stop (`Int.max`: no limit, walk everything in bounds).
        let wanted = limit.map { $0 <= Int.max - found.count ? $0 + found.count : Int.max } ?? Int.max
        var puts = 0
        if first < end {
            // Operations on one entry are neighbours (sorted by key, path, change id): the last of a group not newer
            // than the snapshot wins.
            var i = reverse ? end - 1 : first
            while i >= first, i < end, puts < wanted {
                var (groupStart, groupEnd) = (i, i + 1)
                if reverse {
                    while groupStart > first, Op.sameEntry(ops.sorted[groupStart - 1], ops.sorted[i]) {
                        groupStart -= 1
                    }
                } else {
                    while groupEnd < end, Op.sameEntry(ops.sorted[groupEnd], ops.sorted[i]) { groupEnd += 1 }
                }
                var latest: Op?
                for k in groupStart..<groupEnd where ops.sorted[k].changeID <= snapshotMax { latest = ops.sorted[k] }
                if let latest {
                    found.append(latest)
                    if latest.isPut { puts += 1 }
                }
                i = reverse ? groupStart - 1 : groupEnd
            }
        }
        found.sort(by: Op.precedes)
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
        return found
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

// MARK: - Scans

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
