import Foundation

/// Compares two byte buffers like `memcmp`, shorter-prefix first: negative, zero or positive.
@inline(__always)
package func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let r = memcmp(pa, pb, n)
        if r != 0 { return Int(r) }
    }
    return a.count - b.count
}

/// Compares two byte arrays like `memcmp`, shorter-prefix first.
@inline(__always)
package func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in compareBytes(pa, pb) } }
}

/// Compares two strings by their UTF-8 bytes (SQLite's `BINARY` collation), not by Unicode canonical ordering.
@inline(__always)
package func compareUTF8(_ a: String, _ b: String) -> Int {
    if let result = a.utf8.withContiguousStorageIfAvailable({ pa in
        b.utf8.withContiguousStorageIfAvailable { pb in compareBytes(pa, pb) }
    }), let result {
        return result
    }
    var a = a
    var b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in compareBytes(pa, pb) } }
}
