package import Foundation

extension AnalyticsRecord {
    /// The record as the queue stores it: the JSON `JSONDecoder` reads back into this record with its default
    /// strategies (`JSONEncoder`'s shape: UUIDs as strings, the timestamp as seconds since 2001), written by hand
    /// because `JSONEncoder` was most of the cost of an append. `userID` and `anonymousID` are left out when nil and
    /// `traits` when empty, as queue files written before them were.
    ///
    /// Falls back to `JSONEncoder` for a non-finite number, which it rejects as before.
    package func queueJSON() throws -> Data {
        let time = timestamp.timeIntervalSinceReferenceDate
        guard time.isFinite, sampleRate.isFinite else { return try JSONEncoder().encode(self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes += #"{"id":""#.utf8
        bytes += id.uuidString.utf8
        bytes += #"","name":"#.utf8
        Self.appendJSONString(name, to: &bytes)
        bytes += #","parameters":"#.utf8
        Self.appendJSONObject(parameters, to: &bytes)
        bytes += #","timestamp":"#.utf8
        bytes += time.description.utf8
        bytes += #","sessionID":""#.utf8
        bytes += sessionID.uuidString.utf8
        bytes += #"","context":"#.utf8
        Self.appendJSONObject(context, to: &bytes)
        bytes += #","sampleRate":"#.utf8
        bytes += sampleRate.description.utf8
        if let userID {
            bytes += #","userID":"#.utf8
            Self.appendJSONString(userID, to: &bytes)
        }
        if let anonymousID {
            bytes += #","anonymousID":""#.utf8
            bytes += anonymousID.uuidString.utf8
            bytes.append(UInt8(ascii: "\""))
        }
        if !traits.isEmpty {
            bytes += #","traits":"#.utf8
            Self.appendJSONObject(traits, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    private static func appendJSONObject(_ object: [String: String], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in object {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            appendJSONString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendJSONString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `string` as a JSON string: `"` and `\` escaped, control characters as `\u00XX`, the rest as UTF-8.
    private static func appendJSONString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes += #"\u00"#.utf8
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0x0F))
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
