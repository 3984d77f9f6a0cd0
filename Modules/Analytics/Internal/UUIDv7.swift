package import Foundation

/// Generates UUIDs version 7 (RFC 9562): a 48-bit Unix timestamp in milliseconds, the version, the variant and 74
/// random bits. They sort by creation time, which keeps the queue's and the receivers' indexes append-only.
package enum UUIDv7 {
    /// A UUID v7 for `date`, with random bits from `generator`.
    ///
    /// A date before 1970 or past the year 10889 (the 48-bit range) is clamped to that range.
    package static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> UUID {
        let milliseconds = date.timeIntervalSince1970 * 1000
        let clamped = UInt64(max(0, min(milliseconds.rounded(.down), Double(UInt64(1) << 48 - 1))))
        return make(unixMilliseconds: clamped, using: &generator)
    }

    /// A UUID v7 for the current time.
    package static func make() -> UUID {
        var generator = SystemRandomNumberGenerator()
        return make(at: Date(), using: &generator)
    }

    /// A UUID v7 whose timestamp is `unixMilliseconds` (its low 48 bits).
    package static func make(unixMilliseconds: UInt64, using generator: inout some RandomNumberGenerator) -> UUID {
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: unixMilliseconds >> (8 * (5 - index)))
        }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (8 * (index - 6))) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: low >> (8 * (index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0F)  // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3F)  // variant 10
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The millisecond timestamp of a UUID v7 (meaningless for other versions).
    package static func unixMilliseconds(of uuid: UUID) -> UInt64 {
        let bytes = uuid.uuid
        return [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
