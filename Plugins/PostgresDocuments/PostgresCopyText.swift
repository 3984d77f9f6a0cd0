import NIOCore
import PostgresNIO

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
    /// The rows so far.
    private(set) var bytes: [UInt8] = []
    /// Whether the row being written has a column yet (the next one is preceded by a tab).
    private var rowStarted = false

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written.
    var count: Int { bytes.count }

    /// The rows as one buffer.
    var buffer: ByteBuffer { ByteBuffer(bytes: bytes) }

    /// Ends the row.
    mutating func endRow() {
        bytes.append(Self.newline)
        rowStarted = false
    }

    /// A text column.
    mutating func text(_ value: String) {
        separate()
        append(escaping: value)
    }

    /// A `bytea` column.
    mutating func bytea(_ value: [UInt8]) {
        separate()
        // `\x` in hex input form; its backslash is escaped for COPY.
        bytes.append(contentsOf: [Self.backslash, Self.backslash, UInt8(ascii: "x")])
        appendHex(value)
    }

    /// A NULL column.
    mutating func null() {
        separate()
        bytes.append(contentsOf: [Self.backslash, UInt8(ascii: "N")])
    }

    /// A `text[]` column: `{"a","b"}`, each element quoted, its `"` and `\` escaped for the array, then every
    /// backslash escaped again for COPY.
    mutating func textArray(_ values: some Sequence<String>) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(Self.quote)
            append(escaping: value, inArray: true)
            bytes.append(Self.quote)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// A `bytea[]` column: `{"\\x…","\\x…"}` (the array keeps one backslash of the hex form's `\x`, COPY two more).
    mutating func byteaArray(_ values: some Sequence<[UInt8]>) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.append(contentsOf: Self.quotedHexStart)
            appendHex(value)
            bytes.append(Self.quote)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func separate() {
        if rowStarted { bytes.append(Self.tab) }
        rowStarted = true
    }

    private static let backslash = UInt8(ascii: "\\")
    private static let quote = UInt8(ascii: "\"")
    private static let tab = UInt8(ascii: "\t")
    private static let newline = UInt8(ascii: "\n")
    /// A quoted `bytea` element's start, `"\\x` (the hex form's backslash escaped for the array), escaped for COPY.
    private static let quotedHexStart: [UInt8] = Array(#""\\\\x"#.utf8)

    /// Appends `value`, escaping what COPY's text format reads specially and, `inArray`, what a quoted array element
    /// does (`"` and `\`, each preceded by a backslash that COPY in turn reads escaped).
    private mutating func append(escaping value: String, inArray: Bool = false) {
        var value = value
        value.withUTF8 { utf8 in
            // Most values have nothing to escape: one copy.
            guard utf8.contains(where: { Self.isSpecial($0, inArray: inArray) }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case Self.backslash:
                    if inArray { bytes.append(contentsOf: [Self.backslash, Self.backslash]) }
                    bytes.append(contentsOf: [Self.backslash, Self.backslash])
                case Self.quote where inArray: bytes.append(contentsOf: [Self.backslash, Self.backslash, Self.quote])
                case Self.tab: bytes.append(contentsOf: [Self.backslash, UInt8(ascii: "t")])
                case Self.newline: bytes.append(contentsOf: [Self.backslash, UInt8(ascii: "n")])
                case UInt8(ascii: "\r"): bytes.append(contentsOf: [Self.backslash, UInt8(ascii: "r")])
                default: bytes.append(byte)
                }
            }
        }
    }

    private static func isSpecial(_ byte: UInt8, inArray: Bool) -> Bool {
        byte == backslash || byte == tab || byte == newline || byte == UInt8(ascii: "\r") || (inArray && byte == quote)
    }

    private mutating func appendHex(_ value: [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: value.count * 2))
        bytes.withUnsafeMutableBufferPointer { out in
            var position = start
            for byte in value {
                out[position] = Self.hexDigit(byte >> 4)
                out[position + 1] = Self.hexDigit(byte & 0x0f)
                position += 2
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}

/// A `bytea[]` parameter encoded straight from the byte arrays (postgres-nio's `[ByteBuffer]` needs a buffer per
/// element first): PostgreSQL's binary array format, one dimension, no NULLs.
struct PostgresByteaArray: PostgresNonThrowingEncodable, Sendable {
    static var psqlType: PostgresDataType { .byteaArray }
    static var psqlFormat: PostgresFormat { .binary }

    var elements: [[UInt8]]

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        buffer.writeInteger(elements.isEmpty ? 0 : 1, as: Int32.self)  // dimensions
        buffer.writeInteger(0, as: Int32.self)  // no NULLs
        buffer.writeInteger(PostgresDataType.bytea.rawValue)
        guard !elements.isEmpty else { return }
        buffer.writeInteger(Int32(elements.count))  // length
        buffer.writeInteger(1, as: Int32.self)  // lower bound
        buffer.reserveCapacity(minimumWritableBytes: elements.reduce(0) { $0 + 4 + $1.count })
        for element in elements {
            buffer.writeInteger(Int32(element.count))
            buffer.writeBytes(element)
        }
    }
}
