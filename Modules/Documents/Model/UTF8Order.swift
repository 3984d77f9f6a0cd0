/// Byte-wise comparisons of UTF-8 text, the order Firestore uses for strings, ids and field names.
enum UTF8Order {
    /// Compares `a` and `b` by their UTF-8 bytes: negative, zero or positive.
    @inline(__always)
    static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in compare(UnsafeRawBufferPointer(pa), UnsafeRawBufferPointer(pb)) }
        }
    }

    /// Whether `a` sorts before `b` in UTF-8 byte order.
    @inline(__always)
    static func less(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in
                compare(UnsafeRawBufferPointer(pa), UnsafeRawBufferPointer(pb)) < 0
            }
        }
        if let fast, let result = fast { return result }
        return compare(a, b) < 0
    }

    /// Compares two byte buffers lexicographically (unsigned), shorter first on a common prefix.
    @inline(__always)
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y { return x < y ? -1 : 1 }
            i += 1
        }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }

    /// The positions of `keys` ordered by UTF-8 byte order of the keys (which must be distinct, as a dictionary's).
    static func sortedIndices<C: Collection<String>>(_ keys: C) -> [C.Index] {
        var order: [C.Index] = []
        order.reserveCapacity(keys.count)
        forEachSorted(keys) { order.append($0) }
        return order
    }

    /// Calls `body` with each position of `keys` in UTF-8 byte order of the keys (which must be distinct, as a
    /// dictionary's).
    ///
    /// Maps of documents are small and sorted on every encoding, so small ones are sorted in a stack buffer, comparing
    /// the keys' first eight bytes as one integer and whole keys only when those are equal.
    @inline(__always)
    static func forEachSorted<C: Collection<String>>(_ keys: C, _ body: (C.Index) throws -> Void) rethrows {
        let count = keys.count
        if count <= 1 {
            if let index = keys.indices.first { try body(index) }
            return
        }
        if count > 32 {
            var order = Array(keys.indices)
            order.sort { less(keys[$0], keys[$1]) }
            for index in order { try body(index) }
            return
        }
        try withUnsafeTemporaryAllocation(of: (prefix: UInt64, index: C.Index).self, capacity: count) { buffer in
            var n = 0
            for index in keys.indices where n < buffer.count {
                (buffer.baseAddress.unsafelyUnwrapped + n).initialize(to: (prefix(keys[index]), index))
                n += 1
            }
            let sorted = UnsafeMutableBufferPointer(rebasing: buffer[0..<n])
            defer { sorted.deinitialize() }
            for i in 1..<max(1, n) {
                var j = i
                while j > 0 {
                    let (a, b) = (sorted[j], sorted[j - 1])
                    let before = a.prefix != b.prefix ? a.prefix < b.prefix : less(keys[a.index], keys[b.index])
                    if !before { break }
                    sorted.swapAt(j, j - 1)
                    j -= 1
                }
            }
            for item in sorted { try body(item.index) }
        }
    }

    /// The first eight UTF-8 bytes of `s` as a big-endian integer, zero-padded: comparing two prefixes orders the
    /// strings whenever the prefixes differ.
    @inline(__always)
    static func prefix(_ s: String) -> UInt64 {
        var s = s
        return s.withUTF8 { utf8 in
            var prefix: UInt64 = 0
            var i = 0
            let n = min(8, utf8.count)
            while i < n {
                prefix |= UInt64(utf8[i]) &<< (56 &- 8 &* UInt64(i))
                i += 1
            }
            return prefix
        }
    }

    /// Compares two byte arrays lexicographically (unsigned).
    static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
        a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in compare(pa, pb) } }
    }

    /// Compares two slash-separated paths segment by segment: `/` sorts below every other byte.
    static func comparePaths(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                var i = 0
                let slash = UInt8(ascii: "/")
                while i < n {
                    let x = pa[i]
                    let y = pb[i]
                    if x != y {
                        if x == slash { return -1 }
                        if y == slash { return 1 }
                        return x < y ? -1 : 1
                    }
                    i += 1
                }
                return pa.count < pb.count ? -1 : (pa.count > pb.count ? 1 : 0)
            }
        }
    }
}
