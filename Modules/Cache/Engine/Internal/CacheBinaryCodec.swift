/// The compact binary form of ``CacheMetadata`` (the SQLite store's `metadata` column, the protected store's sealed
/// plaintext): a version byte, then varint-encoded integers and length-prefixed UTF-8 strings. About a tenth of the
/// JSON's size and decoding cost.
///
/// Layout (version 1): `01`, flags (bit 0 freshUntil, bit 1 expiresAt, bit 2 status), storedAt, then the optional
/// fields present, the tag count and tags, the header count and (name, value) pairs. Integers are zigzag varints.
enum CacheBinaryCodec {
    static let version: UInt8 = 1

    /// Appends the metadata's encoding to `bytes`.
    static func append(_ metadata: CacheMetadata, to bytes: inout [UInt8]) {
        var flags: UInt8 = 0
        if metadata.freshUntil != nil { flags |= 1 }
        if metadata.expiresAt != nil { flags |= 2 }
        if metadata.status != nil { flags |= 4 }
        bytes.append(version)
        bytes.append(flags)
        appendInteger(metadata.storedAt, to: &bytes)
        if let freshUntil = metadata.freshUntil { appendInteger(freshUntil, to: &bytes) }
        if let expiresAt = metadata.expiresAt { appendInteger(expiresAt, to: &bytes) }
        if let status = metadata.status { appendInteger(Int64(status), to: &bytes) }
        appendInteger(Int64(metadata.tags.count), to: &bytes)
        for tag in metadata.tags { appendString(tag, to: &bytes) }
        appendInteger(Int64(metadata.headers.count), to: &bytes)
        for header in metadata.headers {
            appendString(header.name, to: &bytes)
            appendString(header.value, to: &bytes)
        }
    }

    /// The metadata's encoding.
    static func encode(_ metadata: CacheMetadata) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + metadata.cost)
        append(metadata, to: &bytes)
        return bytes
    }

    /// Decodes metadata from `bytes`; `nil` when they are not a valid encoding.
    static func decode(_ bytes: some Collection<UInt8>) -> CacheMetadata? {
        var reader = ByteReader(Array(bytes))
        return reader.metadata()
    }

    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        appendBytes(string.utf8, to: &bytes)
    }

    static func appendBytes(_ content: some Collection<UInt8>, to bytes: inout [UInt8]) {
        appendInteger(Int64(content.count), to: &bytes)
        bytes.append(contentsOf: content)
    }

    /// Reads what ``CacheBinaryCodec`` writes; every method returns `nil` on malformed input, never traps.
    struct ByteReader {
        private let bytes: [UInt8]
        private(set) var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var remaining: ArraySlice<UInt8> { bytes[position...] }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func integer() -> Int64? {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                result |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 {
                    let value = Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1)
                    return value
                }
                shift += 7
            }
            return nil
        }

        mutating func count() -> Int? {
            guard let value = integer(), value >= 0, value <= Int64(bytes.count - position) else { return nil }
            return Int(value)
        }

        mutating func byteArray() -> [UInt8]? {
            guard let count = count() else { return nil }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }

        mutating func string() -> String? {
            guard let count = count() else { return nil }
            defer { position += count }
            return String(validating: bytes[position..<position + count], as: UTF8.self)
        }

        mutating func metadata() -> CacheMetadata? {
            guard byte() == CacheBinaryCodec.version, let flags = byte(), let storedAt = integer() else { return nil }
            var metadata = CacheMetadata(storedAt: storedAt)
            if flags & 1 != 0 {
                guard let value = integer() else { return nil }
                metadata.freshUntil = value
            }
            if flags & 2 != 0 {
                guard let value = integer() else { return nil }
                metadata.expiresAt = value
            }
            if flags & 4 != 0 {
                guard let value = integer(), let status = Int(exactly: value) else { return nil }
                metadata.status = status
            }
            guard let tagCount = count() else { return nil }
            metadata.tags.reserveCapacity(tagCount)
            for _ in 0..<tagCount {
                guard let tag = string() else { return nil }
                metadata.tags.append(tag)
            }
            guard let headerCount = count() else { return nil }
            metadata.headers.reserveCapacity(headerCount)
            for _ in 0..<headerCount {
                guard let name = string(), let value = string() else { return nil }
                // Built field by field: `CacheHeader.init` would lower-case the name again.
                var header = CacheHeader("", value)
                header.name = name
                metadata.headers.append(header)
            }
            return metadata
        }
    }
}
