import NIOCore

/// Rows in the text format of `COPY … FROM STDIN` (the format postgres-nio's `copyFrom` sends): a row per line,
/// its columns separated by tabs, `\N` for NULL; backslash, tab, newline and carriage return in a value are escaped.
/// `bytea` values are hex (`\x…`), arrays are array literals with every element quoted.
///
/// ```swift
/// var rows = PostgresCopyText()
/// rows.text("items/a\tb")
/// rows.bytea([0x01, 0xff])
/// rows.endRow()  // items/a\\tb<TAB>\\x01ff<LF>
/// ```
struct PostgresCopyText: Sendable {
    private(set) var buffer: ByteBuffer
    /// Whether the row being written has a column yet (the next one is preceded by a tab).
    private var rowStarted = false

    init(capacity: Int = 0) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// The number of bytes written.
    var count: Int { buffer.readableBytes }

    /// Ends the row.
    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        rowStarted = false
    }

    /// A text column.
    mutating func text(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { Self.escape($0, into: &buffer) }
    }

    /// A `bytea` column.
    mutating func bytea(_ value: [UInt8]) {
        separate()
        // `\x` in hex input form; its backslash is escaped for COPY.
        buffer.writeBytes([UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
        Self.hex(value, into: &buffer)
    }

    /// A column of a decimal integer.
    mutating func integer(_ value: Int64) {
        separate()
        buffer.writeString(String(value))
    }

    /// A NULL column.
    mutating func null() {
        separate()
        buffer.writeBytes([UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }

    /// A `text[]` column: `{"a","b"}`, each element quoted, its `"` and `\` escaped for the array, then every
    /// backslash escaped again for COPY.
    mutating func textArray(_ values: some Sequence<String>) {
        separate()
        buffer.writeInteger(UInt8(ascii: "{"))
        var first = true
        for value in values {
            if !first { buffer.writeInteger(UInt8(ascii: ",")) }
            first = false
            buffer.writeInteger(UInt8(ascii: "\""))
            var value = value
            value.withUTF8 { utf8 in
                var start = 0
                for (position, byte) in utf8.enumerated() where byte == UInt8(ascii: "\"") || byte == Self.backslash {
                    Self.escape(UnsafeBufferPointer(rebasing: utf8[start..<position]), into: &buffer)
                    // The array's escape (a backslash) and the byte, each escaped for COPY.
                    buffer.writeBytes([Self.backslash, Self.backslash])
                    Self.escape(UnsafeBufferPointer(rebasing: utf8[position..<position + 1]), into: &buffer)
                    start = position + 1
                }
                Self.escape(UnsafeBufferPointer(rebasing: utf8[start...]), into: &buffer)
            }
            buffer.writeInteger(UInt8(ascii: "\""))
        }
        buffer.writeInteger(UInt8(ascii: "}"))
    }

    /// A `bytea[]` column: `{"\\x…","\\x…"}` (the array keeps one backslash of the hex form's `\x`, COPY two more).
    mutating func byteaArray(_ values: some Sequence<[UInt8]>) {
        separate()
        buffer.writeInteger(UInt8(ascii: "{"))
        var first = true
        for value in values {
            if !first { buffer.writeInteger(UInt8(ascii: ",")) }
            buffer.writeBytes(Self.quotedHexStart)
            first = false
            Self.hex(value, into: &buffer)
            buffer.writeInteger(UInt8(ascii: "\""))
        }
        buffer.writeInteger(UInt8(ascii: "}"))
    }

    /// Appends the bytes of `other` (whole rows).
    mutating func append(_ other: ByteBufferView) {
        buffer.writeBytes(other)
    }

    private mutating func separate() {
        if rowStarted { buffer.writeInteger(UInt8(ascii: "\t")) }
        rowStarted = true
    }

    private static let backslash = UInt8(ascii: "\\")
    /// A quoted `bytea` element's start, `"\\x` (the hex form's backslash escaped for the array), escaped for COPY.
    private static let quotedHexStart: [UInt8] = Array(#""\\\\x"#.utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Writes `bytes`, escaping what COPY's text format reads specially.
    private static func escape(_ bytes: UnsafeBufferPointer<UInt8>, into buffer: inout ByteBuffer) {
        var start = 0
        for (position, byte) in bytes.enumerated() {
            let escaped: UInt8
            switch byte {
            case backslash: escaped = backslash
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<position]))
            buffer.writeBytes([backslash, escaped])
            start = position + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
    }

    private static func hex(_ bytes: [UInt8], into buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: bytes.count * 2)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes.count * 2) { out in
            for (position, byte) in bytes.enumerated() {
                out[2 * position] = hexDigits[Int(byte >> 4)]
                out[2 * position + 1] = hexDigits[Int(byte & 0x0f)]
            }
            return bytes.count * 2
        }
    }
}
