/// The compact binary encoding of document bodies, as engines store them (``StoredDocument/body``).
///
/// Layout: a format byte (`1`), then the top-level map's body. A map body is a varint count followed by that many
/// entries, each a key (varint length + UTF-8) and a value, keys in UTF-8 byte order — so equal data always
/// encodes to equal bytes. A value is a tag byte followed by its payload:
///
/// | tag | value | payload |
/// |---|---|---|
/// | 0 / 1 / 2 | null / false / true | — |
/// | 3 | int | zigzag varint |
/// | 4 | double | 8 bytes, little-endian IEEE 754 |
/// | 5 | timestamp | zigzag varint of microseconds |
/// | 6 / 7 / 8 | string / bytes / reference | varint length + bytes |
/// | 9 | geo point | latitude, longitude: 8 bytes each |
/// | 10 | array | varint count + values |
/// | 11 | map | map body |
///
/// Decoding checks every length, count, tag and UTF-8 string and throws ``DocumentsError`` `.corrupted` instead of
/// trapping on damaged input; nesting deeper than ``maximumDecodingDepth`` is refused.
///
/// ```swift
/// let body = ValueCodec.encode(["name": .string("Ann"), "points": .int(10)])
/// let data = try ValueCodec.decode(body)
/// ```
@_spi(Engine) public enum ValueCodec {
    /// The format byte written first; decoding refuses other values.
    public static let formatVersion: UInt8 = 1
    /// The deepest nesting of arrays and maps that ``decode(_:)-([UInt8])`` accepts (protects the stack).
    public static let maximumDecodingDepth = 256

    enum Tag {
        static let null: UInt8 = 0
        static let `false`: UInt8 = 1
        static let `true`: UInt8 = 2
        static let int: UInt8 = 3
        static let double: UInt8 = 4
        static let timestamp: UInt8 = 5
        static let string: UInt8 = 6
        static let bytes: UInt8 = 7
        static let reference: UInt8 = 8
        static let geoPoint: UInt8 = 9
        static let array: UInt8 = 10
        static let map: UInt8 = 11
    }

    // MARK: - Encoding

    /// Encodes a document's fields. Equal data (as `==`) gives equal bytes.
    public static func encode(_ data: DocumentData) -> [UInt8] {
        // One pass into a scratch buffer that grows as needed, then one copy of the exact size: cheaper than walking
        // the document a first time to size the result.
        var writer = Writer(capacity: 1024)
        defer { writer.deallocate() }
        writer.byte(formatVersion)
        writer.mapBody(data)
        return [UInt8](UnsafeBufferPointer(start: writer.base, count: writer.position))
    }

    /// The exact number of bytes ``encode(_:)`` produces for `data`.
    public static func encodedSize(_ data: DocumentData) -> Int { 1 + mapBodySize(data) }

    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        // 1 byte per 7 bits, at least one.
        let bits = 64 - (value | 1).leadingZeroBitCount
        return (bits + 6) / 7
    }

    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    @inline(__always)
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    static func mapBodySize(_ map: [String: DocumentValue]) -> Int {
        var size = varintSize(UInt64(map.count))
        for (key, value) in map {
            let n = key.utf8.count
            size += varintSize(UInt64(n)) + n + valueSize(value)
        }
        return size
    }

    static func valueSize(_ value: DocumentValue) -> Int {
        switch value {
        case .null, .bool: return 1
        case .int(let i): return 1 + varintSize(zigzag(i))
        case .double: return 9
        case .timestamp(let t): return 1 + varintSize(zigzag(t.microseconds))
        case .string(let s), .reference(let s):
            let n = s.utf8.count
            return 1 + varintSize(UInt64(n)) + n
        case .bytes(let b): return 1 + varintSize(UInt64(b.count)) + b.count
        case .geoPoint: return 17
        case .array(let items):
            var size = 1 + varintSize(UInt64(items.count))
            for item in items { size += valueSize(item) }
            return size
        case .map(let map): return 1 + mapBodySize(map)
        }
    }

    /// Writes into a buffer it owns, growing it as needed; ``deallocate()`` frees it.
    struct Writer {
        private(set) var base: UnsafeMutablePointer<UInt8>
        private(set) var capacity: Int
        private(set) var position = 0

        init(capacity: Int) {
            self.capacity = max(16, capacity)
            self.base = .allocate(capacity: self.capacity)
        }

        func deallocate() { base.deallocate() }

        /// Makes room for `count` more bytes.
        @inline(__always)
        mutating func reserve(_ count: Int) {
            if count > capacity &- position { grow(position + count) }
        }

        @inline(never)
        private mutating func grow(_ needed: Int) {
            let newCapacity = max(needed, capacity * 2)
            let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newBase.update(from: base, count: position)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        @inline(__always)
        mutating func byte(_ b: UInt8) {
            reserve(1)
            base[position] = b
            position += 1
        }

        @inline(__always)
        mutating func varint(_ value: UInt64) {
            reserve(10)
            var v = value
            while v >= 0x80 {
                base[position] = UInt8(truncatingIfNeeded: v) | 0x80
                position += 1
                v >>= 7
            }
            base[position] = UInt8(truncatingIfNeeded: v)
            position += 1
        }

        @inline(__always)
        mutating func fixed64(_ value: UInt64) {
            reserve(8)
            UnsafeMutableRawPointer(base + position).storeBytes(of: value.littleEndian, as: UInt64.self)
            position += 8
        }

        @inline(__always)
        mutating func raw(_ bytes: UnsafeRawBufferPointer) {
            reserve(bytes.count)
            if let source = bytes.baseAddress, bytes.count > 0 {
                (base + position).update(from: source.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            }
            position += bytes.count
        }

        @inline(__always)
        mutating func text(_ s: String) {
            // Native strings are contiguous: no copy of the string to get at its bytes.
            let done: Void? = s.utf8.withContiguousStorageIfAvailable { utf8 in
                varint(UInt64(utf8.count))
                raw(UnsafeRawBufferPointer(utf8))
            }
            if done == nil {
                var s = s
                s.withUTF8 { utf8 in
                    varint(UInt64(utf8.count))
                    raw(UnsafeRawBufferPointer(utf8))
                }
            }
        }

        mutating func mapBody(_ map: [String: DocumentValue]) {
            varint(UInt64(map.count))
            if map.count == 1, let (key, value) = map.first {
                text(key)
                self.value(value)
                return
            }
            // Sort positions rather than (key, value) pairs: no reference counting while sorting.
            let keys = map.keys
            let values = map.values
            UTF8Order.forEachSorted(keys) { index in
                text(keys[index])
                self.value(values[index])
            }
        }

        mutating func value(_ value: DocumentValue) {
            switch value {
            case .null: byte(Tag.null)
            case .bool(let b): byte(b ? Tag.true : Tag.false)
            case .int(let i):
                byte(Tag.int)
                varint(zigzag(i))
            case .double(let d):
                byte(Tag.double)
                fixed64(d.bitPattern)
            case .timestamp(let t):
                byte(Tag.timestamp)
                varint(zigzag(t.microseconds))
            case .string(let s):
                byte(Tag.string)
                text(s)
            case .reference(let s):
                byte(Tag.reference)
                text(s)
            case .bytes(let b):
                byte(Tag.bytes)
                varint(UInt64(b.count))
                b.withUnsafeBytes { raw($0) }
            case .geoPoint(let g):
                byte(Tag.geoPoint)
                fixed64(g.latitude.bitPattern)
                fixed64(g.longitude.bitPattern)
            case .array(let items):
                byte(Tag.array)
                varint(UInt64(items.count))
                for item in items { self.value(item) }
            case .map(let map):
                byte(Tag.map)
                mapBody(map)
            }
        }
    }
}
