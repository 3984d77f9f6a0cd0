/// A path relative to a managed root, kept as the raw bytes the file system returned.
///
/// Linux file names are bytes, not text: a name that is not valid UTF-8 must still be found again, measured and
/// deleted. The index stores these bytes as a SQLite `BLOB`; ``description`` (and the `Codable` form, a JSON string)
/// is an escaped text in which every valid UTF-8 character stands for itself except `\`, written `\\`, and every byte
/// of an invalid sequence is written `\xNN` (two lowercase hex digits). ``init(escaped:)`` reverses it exactly.
///
/// ```swift
/// let path = StoragePath(bytes: Array("chats/c1/photo".utf8) + [0xFF])
/// print(path)  // chats/c1/photo\xff
/// ```
public struct StoragePath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path's bytes, components separated by `/`, with no leading or trailing `/`.
    public var bytes: [UInt8]

    /// A path from raw bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// A path from a string; the result of ``description`` for a UTF-8 path without backslashes.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    /// The path whose escaped form (see the type's documentation) is `escaped`; `nil` when it is not a valid escape.
    public init?(escaped: String) {
        var out: [UInt8] = []
        let input = Array(escaped.utf8)
        var index = 0
        while index < input.count {
            let byte = input[index]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 1 < input.count else { return nil }
            if input[index + 1] == UInt8(ascii: "\\") {
                out.append(byte)
                index += 2
            } else if input[index + 1] == UInt8(ascii: "x"), index + 3 < input.count,
                let high = Self.hexValue(input[index + 2]), let low = Self.hexValue(input[index + 3])
            {
                out.append(high << 4 | low)
                index += 4
            } else {
                return nil
            }
        }
        self.bytes = out
    }

    /// The escaped text form (see the type's documentation).
    public var description: String { Self.escape(bytes[...]) }

    /// The components, split at `/`.
    package var components: [ArraySlice<UInt8>] {
        bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    }

    /// The last component, escaped.
    public var fileName: String {
        let last = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        return Self.escape(bytes[last...])
    }

    /// Whether every byte is printable UTF-8 (the escaped form equals the plain one).
    package var isPlainUTF8: Bool {
        !bytes.contains(UInt8(ascii: "\\")) && String(validating: bytes, as: UTF8.self) != nil
    }

    public static func < (lhs: StoragePath, rhs: StoragePath) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    /// `bytes` in the escaped form.
    static func escape(_ bytes: ArraySlice<UInt8>) -> String {
        if !bytes.contains(UInt8(ascii: "\\")), let plain = String(validating: bytes, as: UTF8.self) { return plain }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(bytes[index] >> 4)]])
                out.append(hex[Int(bytes[index] & 0xF)])
                index += 1
            } else {
                if bytes[index] == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
                out.append(contentsOf: bytes[index..<(index + length)])
                index += length
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0 when the byte there starts none.
    private static func validSequenceLength(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return 0
        }
        guard index + length <= bytes.endIndex else { return 0 }
        return String(validating: bytes[index..<(index + length)], as: UTF8.self) == nil ? 0 : length
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension StoragePath: Codable {
    /// Decodes the escaped form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let path = StoragePath(escaped: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an escaped storage path")
        }
        self = path
    }

    /// Encodes the escaped form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
