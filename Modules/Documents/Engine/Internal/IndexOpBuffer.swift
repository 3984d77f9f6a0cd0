import Foundation

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
