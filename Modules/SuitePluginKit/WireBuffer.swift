/// Appends the primitives of Suite's binary wire format to a byte array: little-endian integers, `UInt32` length
/// prefixes, one-byte tags. A binary engine kind (e.g. `documents`) lays its messages out with these; the layout of
/// each primitive is in `suite_plugin.h`.
///
/// ```swift
/// var w = WireWriter()
/// w.string("users/u1")
/// w.optionalInt(20)
/// send(w.bytes)
/// ```
package struct WireWriter {
    /// The bytes written so far.
    package var bytes: [UInt8]

    /// An empty writer with room for `capacity` bytes.
    @inlinable
    package init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// One byte (a tag).
    @inlinable
    package mutating func u8(_ value: UInt8) { bytes.append(value) }

    /// A boolean as one byte, 0 or 1.
    @inlinable
    package mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    /// Four bytes, little-endian.
    @inlinable
    package mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Eight bytes, little-endian.
    @inlinable
    package mutating func i64(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A count or length. Swift arrays and strings never exceed `UInt32.max` elements in practice; a larger one is
    /// clamped and the reader will then see a truncated message and fail cleanly rather than trap.
    @inlinable
    package mutating func count(_ value: Int) { u32(UInt32(clamping: value)) }

    /// Raw bytes behind a `u32` length.
    @inlinable
    package mutating func blob(_ value: [UInt8]) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    /// UTF-8 behind a `u32` length.
    @inlinable
    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    /// A presence tag (0 or 1), then the string when present.
    @inlinable
    package mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }

    /// A presence tag (0 or 1), then the bytes when present.
    @inlinable
    package mutating func optionalBlob(_ value: [UInt8]?) {
        if let value {
            u8(1)
            blob(value)
        } else {
            u8(0)
        }
    }

    /// A presence tag (0 or 1), then the value as an `i64` when present.
    @inlinable
    package mutating func optionalInt(_ value: Int?) {
        if let value {
            u8(1)
            i64(Int64(value))
        } else {
            u8(0)
        }
    }
}

/// Why bytes are not a well-formed message: what was wrong and where. A kind turns it into its own error (the
/// `documents` kind into `DocumentsError(.corrupted)`), naming the operation and the direction.
package struct WireFormatError: Error, Sendable, CustomStringConvertible {
    /// What was wrong, e.g. "truncated (needs 4 more bytes, has 1)".
    package var reason: String
    /// Where in the message it was noticed.
    package var offset: Int
    /// The length of the whole message.
    package var length: Int

    /// Creates an error at `offset` of a `length`-byte message.
    package init(_ reason: String, offset: Int, length: Int) {
        self.reason = reason
        self.offset = offset
        self.length = length
    }

    package var description: String { "\(reason) at byte \(offset) of \(length)" }
}

/// Reads the primitives written by ``WireWriter`` from untrusted bytes. Every read checks the remaining length first
/// and throws ``WireFormatError`` instead of reading out of bounds; counts are checked against the bytes left before
/// anything is allocated, so a forged count cannot exhaust memory.
package struct WireReader {
    @usableFromInline let base: UnsafeRawBufferPointer
    @usableFromInline var offset = 0

    /// A reader over `base`, which must stay valid while the reader is used.
    @inlinable
    package init(_ base: UnsafeRawBufferPointer) {
        self.base = base
    }

    /// The bytes not read yet.
    @inlinable
    package var remaining: Int { base.count - offset }

    /// An error saying the message is malformed for `reason`, at the current offset.
    package func malformed(_ reason: String) -> WireFormatError {
        WireFormatError(reason, offset: offset, length: base.count)
    }

    @inlinable
    mutating func take(_ n: Int) throws -> Int {
        guard n >= 0, n <= remaining else { throw malformed("truncated (needs \(n) more bytes, has \(remaining))") }
        let start = offset
        offset += n
        return start
    }

    /// One byte.
    @inlinable
    package mutating func u8() throws -> UInt8 {
        let at = try take(1)
        return base[at]
    }

    /// A boolean: 0 or 1, anything else is refused.
    @inlinable
    package mutating func bool() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw malformed("invalid boolean \(other)")
        }
    }

    /// A presence tag: 0 absent, 1 present.
    @inlinable
    package mutating func present() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw malformed("invalid optional tag \(other)")
        }
    }

    /// Four bytes, little-endian.
    @inlinable
    package mutating func u32() throws -> UInt32 {
        let at = try take(4)
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    /// Eight bytes, little-endian.
    @inlinable
    package mutating func i64() throws -> Int64 {
        let at = try take(8)
        return Int64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int64.self))
    }

    /// A count of items each taking at least `minimumSize` bytes; refused when the bytes left cannot hold them.
    @inlinable
    package mutating func count(minimumSize: Int) throws -> Int {
        let n = Int(try u32())
        guard n <= remaining / max(1, minimumSize) else {
            throw malformed("count \(n) exceeds what the remaining \(remaining) bytes can hold")
        }
        return n
    }

    /// Raw bytes behind a `u32` length.
    @inlinable
    package mutating func blob() throws -> [UInt8] {
        let n = Int(try u32())
        let at = try take(n)
        return Array(UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]))
    }

    /// UTF-8 behind a `u32` length (invalid sequences are repaired, never refused).
    @inlinable
    package mutating func string() throws -> String {
        let n = Int(try u32())
        let at = try take(n)
        return String(decoding: UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]), as: UTF8.self)
    }

    /// A presence tag, then a string when present.
    @inlinable
    package mutating func optionalString() throws -> String? {
        try present() ? try string() : nil
    }

    /// A presence tag, then bytes when present.
    @inlinable
    package mutating func optionalBlob() throws -> [UInt8]? {
        try present() ? try blob() : nil
    }

    /// A presence tag, then an `i64` when present.
    @inlinable
    package mutating func optionalInt() throws -> Int? {
        try present() ? Int(truncatingIfNeeded: try i64()) : nil
    }

    /// Fails unless every byte was consumed: trailing bytes mean the two sides disagree on the layout.
    package func finish() throws {
        guard remaining == 0 else { throw malformed("\(remaining) unexpected trailing bytes") }
    }
}
