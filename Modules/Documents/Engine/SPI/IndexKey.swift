/// Order-preserving, prefix-free byte encodings of values for index entries (``IndexEntry/key``).
///
/// For any two values, comparing their keys bytewise (memcmp order) gives the same result as Firestore's value
/// ordering (``DocumentValue/compare(_:_:)``): equivalent values (such as `.int(1)` and `.double(1.0)`) get equal
/// keys. A descending key is the ascending key with every byte inverted, which reverses the order. No key is a
/// prefix of another, so keys of several values appended one after the other (a composite index, each part
/// ascending or descending) order lexicographically, part by part.
///
/// Layout: a type byte (`0x10 + typeOrder`), then
/// - bool: `0x00` / `0x01`;
/// - number: the value as a sortable 64-bit double (sign-adjusted, big-endian; NaN first, `-0.0` as `0.0`), then
///   a 2-byte tiebreak holding `int - Double(int)` for integers beyond 2^53 that doubles cannot represent exactly;
/// - timestamp: microseconds, sign-flipped big-endian;
/// - string and bytes: the bytes with `0x00` escaped as `0x00 0xFF`, terminated by `0x00 0x01`;
/// - reference: the path with `0x00` escaped as `0x00 0xFF` and `/` as `0x00 0x01`, terminated by `0x00 0x00`
///   (so paths order segment by segment);
/// - geo point: latitude then longitude as sortable doubles;
/// - array: each element's key, then `0x00`;
/// - vector (Firestore's `__vector__` map): the array's type byte, `0xFF` (after every array's next byte, before
///   every map), the dimension as 4 big-endian bytes, each element's key;
/// - map: for each entry in key order, `0x01`, the key as a string, the value's key; then `0x00`.
///
/// ```swift
/// var key: [UInt8] = []
/// IndexKey.append(.string("Paris"), descending: false, to: &key)
/// IndexKey.appendDocumentPath("users/u1", descending: false, to: &key)
/// ```
@_spi(Engine) public enum IndexKey {
    /// The type byte of the values of ``DocumentValue/typeOrder`` `order` (ascending).
    ///
    /// Every ascending key of a value of that type starts with this byte, so `[typeByte]` (inclusive) and
    /// `[typeByte + 1]` (exclusive) bound all of them — e.g. to keep a range filter on numbers within numbers.
    /// For descending keys, invert the bounds (`~typeByte` is the first byte) and swap them.
    public static func typeByte(forTypeOrder order: Int) -> UInt8 { 0x10 &+ UInt8(truncatingIfNeeded: order) }

    /// Appends the key of `value` to `key`, inverted when `descending`.
    public static func append(_ value: DocumentValue, descending: Bool, to key: inout [UInt8]) {
        let start = key.count
        appendAscending(value, to: &key)
        if descending { invert(&key, from: start) }
    }

    /// The key of `value` alone.
    public static func encode(_ value: DocumentValue, descending: Bool = false) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(capacityHint(value))
        append(value, descending: descending, to: &key)
        return key
    }

    /// About the size of `value`'s key, so that encoding one rarely grows the array.
    @inline(__always)
    static func capacityHint(_ value: DocumentValue) -> Int {
        switch value {
        case .string(let s): s.utf8.count + 3
        case .reference(let s): s.utf8.count + 8
        case .bytes(let b): b.count + 3
        case .array, .map: 64
        default: 17
        }
    }

    /// Appends the key of a document path, ordered like Firestore's `__name__` (segment by segment).
    ///
    /// The bytes are those of `.reference(path)`, so a document's path and a reference to it have equal keys.
    public static func appendDocumentPath(_ path: String, descending: Bool, to key: inout [UInt8]) {
        let start = key.count
        key.append(typeByte(forTypeOrder: 6))
        appendPath(path, to: &key)
        if descending { invert(&key, from: start) }
    }

    // MARK: - Bounding

    /// Keys of automatic (single-field and array-contains) index entries are at most this long before bounding.
    ///
    /// Firestore caps index entries too (it truncates values beyond 1,500 bytes). Here a longer key — a map, an
    /// array, a long string — is stored as ``boundedPrefixLength`` bytes of its key followed by an 8-byte hash of the
    /// whole key (``bounded(_:)``). Without the bound an order document's `items` and `shipping` entries (and the
    /// per-document list of its own entries) carried every value twice over.
    public static let maximumLength = 64
    /// The bytes of a long key kept in front of its hash; a bounded key is one byte longer than ``maximumLength``,
    /// so it never equals a key that was stored whole.
    public static let boundedPrefixLength = maximumLength - 7

    /// `key` when it is at most ``maximumLength`` bytes; otherwise its first ``boundedPrefixLength`` bytes and a
    /// 64-bit hash of all of it (``maximumLength`` + 1 bytes).
    ///
    /// What holds for bounded keys (the query runner relies on each):
    /// - Equal values have equal bounded keys; different values almost never (a 64-bit hash collision) — so an
    ///   equality scan reads the matching documents plus, at worst, a collision, which the document check removes.
    /// - Against a key of at most ``boundedPrefixLength`` bytes (a range bound), a bounded key compares like the whole
    ///   key: the comparison is decided within the prefix.
    /// - Two keys whose first ``boundedPrefixLength`` bytes are equal and that are longer than that may come out of
    ///   order (hash order); those form a *prefix group*, which an ordered scan re-sorts by value.
    public static func bounded(_ key: consuming [UInt8]) -> [UInt8] {
        guard key.count > maximumLength else { return key }
        let hash = key.withUnsafeBytes { longKeyHash($0) }
        // In place when the caller's key is not shared (most are not): no second allocation.
        key.removeSubrange(boundedPrefixLength...)
        appendBigEndian(hash, to: &key)
        return key
    }

    /// The 64-bit hash a bounded key ends with: eight bytes at a time (little-endian words, then the tail), each
    /// word mixed in by xor, multiply and shift, the length folded in last. Stored in files: never change it.
    static func longKeyHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash: UInt64 = 0x2545_F491_4F6C_DD1D
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = (hash ^ word) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail ^ UInt64(bytes.count) << 56) &* multiplier
        hash ^= hash >> 32
        return hash
    }

    /// Whether `key` (of a range bound or a filter value) would be cut by ``bounded(_:)``.
    public static func exceedsBound(_ key: [UInt8]) -> Bool { key.count > maximumLength }

    /// The prefix group a stored bounded key belongs to (see ``bounded(_:)``), `nil` when it is in none: its first
    /// ``boundedPrefixLength`` bytes when it is longer than that.
    static func prefixGroup(_ key: [UInt8]) -> ArraySlice<UInt8>? {
        key.count > boundedPrefixLength ? key[0..<boundedPrefixLength] : nil
    }

    // MARK: - Composing

    /// The key of an array whose elements have the (ascending) keys `elementKeys`, in order: the same bytes as
    /// ``encode(_:descending:)`` of the array, without encoding the elements again.
    static func arrayKey(elementKeys: [[UInt8]]) -> [UInt8] {
        var size = 2
        for element in elementKeys { size += element.count }
        var key: [UInt8] = []
        key.reserveCapacity(size)
        key.append(0x18)
        for element in elementKeys { key.append(contentsOf: element) }
        key.append(0x00)
        return key
    }

    /// The key of a map whose fields have the (ascending) keys `fields`, in any order: the same bytes as
    /// ``encode(_:descending:)`` of the map, without encoding the values again.
    static func mapKey(fields: [(name: String, key: [UInt8])]) -> [UInt8] {
        var size = 2
        for field in fields { size += field.name.utf8.count + field.key.count + 3 }
        var key: [UInt8] = []
        key.reserveCapacity(size)
        key.append(0x19)
        if fields.count == 1 {
            appendMapField(fields[0], to: &key)
        } else if !fields.isEmpty {
            UTF8Order.forEachSorted(fields.lazy.map { $0.name }) { appendMapField(fields[$0], to: &key) }
        }
        key.append(0x00)
        return key
    }

    @inline(__always)
    private static func appendMapField(_ field: (name: String, key: [UInt8]), to key: inout [UInt8]) {
        key.append(0x01)
        appendEscaped(field.name, to: &key)
        key.append(contentsOf: field.key)
    }

    // MARK: - Encoding

    static func appendAscending(_ value: DocumentValue, to key: inout [UInt8]) {
        switch value {
        case .null:
            key.append(0x10)
        case .bool(let b):
            key.append(0x11)
            key.append(b ? 1 : 0)
        case .int(let i):
            key.append(0x12)
            let d = Double(i)
            // The exact difference between the integer and its nearest double (|diff| <= 512).
            let diff: Int64 = d >= 9_223_372_036_854_775_808.0 ? (i - Int64.max) - 1 : i - Int64(d)
            appendBigEndian(sortableBits(d), to: &key)
            appendTiebreak(diff, to: &key)
        case .double(let d):
            key.append(0x12)
            appendBigEndian(sortableBits(d), to: &key)
            appendTiebreak(0, to: &key)
        case .timestamp(let t):
            key.append(0x13)
            appendBigEndian(UInt64(bitPattern: t.microseconds) ^ (1 << 63), to: &key)
        case .string(let s):
            key.append(0x14)
            appendEscaped(s, to: &key)
        case .bytes(let b):
            key.append(0x15)
            b.withUnsafeBytes { appendEscaped($0, to: &key) }
        case .reference(let path):
            key.append(0x16)
            appendPath(path, to: &key)
        case .geoPoint(let g):
            key.append(0x17)
            appendBigEndian(sortableBits(g.latitude), to: &key)
            appendBigEndian(sortableBits(g.longitude), to: &key)
        case .array(let items):
            key.append(0x18)
            for item in items { appendAscending(item, to: &key) }
            key.append(0x00)
        case .map(let map):
            if let elements = DocumentValue.vectorElements(map) {
                key.append(0x18)
                key.append(0xFF)
                let dimension = UInt32(truncatingIfNeeded: elements.count)
                for shift in [24, 16, 8, 0] as [UInt32] { key.append(UInt8(truncatingIfNeeded: dimension >> shift)) }
                for element in elements { appendAscending(element, to: &key) }
                return
            }
            key.append(0x19)
            let (names, values) = (map.keys, map.values)
            UTF8Order.forEachSorted(names) { index in
                key.append(0x01)
                appendEscaped(names[index], to: &key)
                appendAscending(values[index], to: &key)
            }
            key.append(0x00)
        }
    }

    /// A double's bits rearranged so unsigned comparison orders numerically; NaN below everything, `-0.0` as `0.0`.
    @inline(__always)
    static func sortableBits(_ d: Double) -> UInt64 {
        if d.isNaN { return 0 }
        let bits = (d == 0 ? 0.0 : d).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    @inline(__always)
    static func appendTiebreak(_ diff: Int64, to key: inout [UInt8]) {
        let biased = UInt16(truncatingIfNeeded: diff) ^ 0x8000
        key.append(UInt8(truncatingIfNeeded: biased >> 8))
        key.append(UInt8(truncatingIfNeeded: biased))
    }

    @inline(__always)
    static func appendBigEndian(_ value: UInt64, to key: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { key.append(contentsOf: $0) }
    }

    /// Appends the UTF-8 bytes of `text` escaped, then the terminator (see ``appendEscaped(_:to:)-(UnsafeRawBufferPointer,_)``).
    @inline(__always)
    static func appendEscaped(_ text: String, to key: inout [UInt8]) {
        // Native strings are contiguous: no copy of the string to get at its bytes.
        let done: Void? = text.utf8.withContiguousStorageIfAvailable {
            appendEscaped(UnsafeRawBufferPointer($0), to: &key)
        }
        if done == nil {
            var text = text
            text.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0), to: &key) }
        }
    }

    /// Appends bytes with `0x00` escaped as `0x00 0xFF`, then the terminator `0x00 0x01`.
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        if !bytes.contains(0) {
            key.append(contentsOf: bytes)
        } else {
            key.reserveCapacity(key.count + bytes.count + 8)
            for b in bytes {
                key.append(b)
                if b == 0 { key.append(0xFF) }
            }
        }
        key.append(0x00)
        key.append(0x01)
    }

    /// Appends a path with `0x00` → `0x00 0xFF`, `/` → `0x00 0x01`, then the terminator `0x00 0x00`.
    static func appendPath(_ path: String, to key: inout [UInt8]) {
        var path = path
        path.withUTF8 { utf8 in
            key.reserveCapacity(key.count + utf8.count + 8)
            for b in utf8 {
                switch b {
                case 0:
                    key.append(0x00)
                    key.append(0xFF)
                case UInt8(ascii: "/"):
                    key.append(0x00)
                    key.append(0x01)
                default:
                    key.append(b)
                }
            }
        }
        key.append(0x00)
        key.append(0x00)
    }

    static func invert(_ key: inout [UInt8], from start: Int) {
        key.withUnsafeMutableBufferPointer { buffer in
            var i = start
            while i < buffer.count {
                buffer[i] = ~buffer[i]
                i += 1
            }
        }
    }
}
