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
