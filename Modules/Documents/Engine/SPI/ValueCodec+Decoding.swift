extension ValueCodec {
    /// Decodes a body produced by ``encode(_:)``.
    ///
    /// Throws ``DocumentsError`` `.corrupted` if the bytes are not a valid encoding (bad format byte, truncated
    /// data, unknown tag, invalid UTF-8, duplicate keys, trailing bytes, nesting too deep); never traps.
    public static func decode(_ bytes: [UInt8]) throws -> DocumentData {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    /// Decodes a body produced by ``encode(_:)`` from raw memory (e.g. a column read straight from SQLite).
    ///
    /// Throws ``DocumentsError`` `.corrupted` on invalid input; never traps.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws -> DocumentData {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw corrupt("the body is empty", at: 0) }
        var reader = Reader(base: base, end: bytes.count)
        let format = try reader.byte()
        guard format == formatVersion else { throw corrupt("unknown format byte \(format)", at: 0) }
        let data = try reader.mapBody(depth: 0)
        guard reader.position == reader.end else {
            throw corrupt("unexpected bytes after the document", at: reader.position)
        }
        return data
    }

    static func corrupt(_ what: String, at offset: Int) -> DocumentsError {
        DocumentsError(
            .corrupted, "a stored document body is corrupt: \(what) (offset \(offset))",
            hint: "the stored data was damaged or written by an incompatible version; restore it from a backup or "
                + "rewrite the document")
    }

    /// A bounds-checked cursor over the encoded bytes.
    struct Reader {
        let base: UnsafeRawPointer
        let end: Int
        var position = 0

        init(base: UnsafeRawPointer, end: Int) {
            self.base = base
            self.end = end
        }

        @inline(__always)
        mutating func byte() throws -> UInt8 {
            guard position < end else { throw ValueCodec.corrupt("unexpected end of data", at: position) }
            let b = base.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            return b
        }

        @inline(__always)
        mutating func varint() throws -> UInt64 {
            // Fast path: one byte.
            if position < end {
                let b = base.load(fromByteOffset: position, as: UInt8.self)
                if b < 0x80 {
                    position += 1
                    return UInt64(b)
                }
            }
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                if shift == 63 && b > 1 { throw ValueCodec.corrupt("varint overflows 64 bits", at: position - 1) }
                result |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return result }
                shift += 7
            }
        }

        /// Reads a length and checks that that many bytes remain.
        @inline(__always)
        mutating func length() throws -> Int {
            let n = try varint()
            guard n <= UInt64(end - position) else {
                throw ValueCodec.corrupt("a length of \(n) runs past the end of the data", at: position)
            }
            return Int(n)
        }

        @inline(__always)
        mutating func fixed64() throws -> UInt64 {
            guard end - position >= 8 else { throw ValueCodec.corrupt("unexpected end of data", at: position) }
            let v = base.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            position += 8
            return UInt64(littleEndian: v)
        }

        @inline(__always)
        mutating func text() throws -> String {
            let n = try length()
            let start = position
            position += n
            if n == 0 { return "" }
            let buffer = UnsafeRawBufferPointer(start: base + start, count: n)
            // Fast path for ASCII (valid UTF-8 by construction); validate anything else.
            if Reader.isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
            guard let s = String(validating: buffer, as: UTF8.self) else {
                throw ValueCodec.corrupt("a string is not valid UTF-8", at: start)
            }
            return s
        }

        /// Whether every byte is below 0x80, checked eight bytes at a time.
        @inline(__always)
        static func isASCII(_ buffer: UnsafeRawBufferPointer) -> Bool {
            guard let base = buffer.baseAddress else { return true }
            let n = buffer.count
            var i = 0
            var bits: UInt64 = 0
            while i + 8 <= n {
                bits |= base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
            while i < n {
                bits |= UInt64(base.load(fromByteOffset: i, as: UInt8.self))
                i += 1
            }
            return bits & 0x8080_8080_8080_8080 == 0
        }

        mutating func mapBody(depth: Int) throws -> [String: DocumentValue] {
            let count = try varint()
            // Each entry takes at least two bytes (an empty key and a tag).
            guard count <= UInt64(end - position) / 2 else {
                throw ValueCodec.corrupt("a map count of \(count) exceeds the data", at: position)
            }
            let n = Int(count)
            if n == 0 { return [:] }
            var map = [String: DocumentValue](minimumCapacity: n)
            for _ in 0..<n {
                let key = try text()
                map[key] = try self.value(depth: depth)
            }
            guard map.count == n else { throw ValueCodec.corrupt("a map has duplicate keys", at: position) }
            return map
        }

        mutating func value(depth: Int) throws -> DocumentValue {
            let tagOffset = position
            let tag = try byte()
            switch tag {
            case Tag.null: return .null
            case Tag.false: return .bool(false)
            case Tag.true: return .bool(true)
            case Tag.int: return .int(ValueCodec.unzigzag(try varint()))
            case Tag.double: return .double(Double(bitPattern: try fixed64()))
            case Tag.timestamp: return .timestamp(Timestamp(microseconds: ValueCodec.unzigzag(try varint())))
            case Tag.string: return .string(try text())
            case Tag.reference: return .reference(try text())
            case Tag.bytes:
                let n = try length()
                let bytes = [UInt8](UnsafeRawBufferPointer(start: base + position, count: n))
                position += n
                return .bytes(bytes)
            case Tag.geoPoint:
                let latitude = Double(bitPattern: try fixed64())
                let longitude = Double(bitPattern: try fixed64())
                return .geoPoint(GeoPoint(latitude: latitude, longitude: longitude))
            case Tag.array:
                guard depth < ValueCodec.maximumDecodingDepth else {
                    throw ValueCodec.corrupt("nesting deeper than \(ValueCodec.maximumDecodingDepth)", at: tagOffset)
                }
                let count = try varint()
                guard count <= UInt64(end - position) else {
                    throw ValueCodec.corrupt("an array count of \(count) exceeds the data", at: position)
                }
                var items: [DocumentValue] = []
                items.reserveCapacity(Int(count))
                for _ in 0..<Int(count) { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case Tag.map:
                guard depth < ValueCodec.maximumDecodingDepth else {
                    throw ValueCodec.corrupt("nesting deeper than \(ValueCodec.maximumDecodingDepth)", at: tagOffset)
                }
                return .map(try mapBody(depth: depth + 1))
            default:
                throw ValueCodec.corrupt("unknown value tag \(tag)", at: tagOffset)
            }
        }
    }
}
