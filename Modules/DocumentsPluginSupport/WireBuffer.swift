import Documents

/// Appends the primitives of the documents wire format to a byte array: little-endian integers, `UInt32` length
/// prefixes, one-byte tags. See ``DocumentEngineWire`` for the layout of each message.
struct WireWriter {
    var bytes: [UInt8]

    init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func u32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func i64(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A count or length. Swift arrays and strings never exceed `UInt32.max` elements in practice; a larger one is
    /// clamped and the reader will then see a truncated message and fail cleanly rather than trap.
    mutating func count(_ value: Int) { u32(UInt32(clamping: value)) }

    mutating func blob(_ value: [UInt8]) {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            count(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalString(_ value: String?) {
        if let value {
            u8(1)
            string(value)
        } else {
            u8(0)
        }
    }

    mutating func optionalBlob(_ value: [UInt8]?) {
        if let value {
            u8(1)
            blob(value)
        } else {
            u8(0)
        }
    }

    mutating func optionalInt(_ value: Int?) {
        if let value {
            u8(1)
            i64(Int64(value))
        } else {
            u8(0)
        }
    }

    mutating func entry(_ entry: IndexEntry) {
        string(entry.index)
        blob(entry.key)
    }

    mutating func entries(_ entries: [IndexEntry]) {
        count(entries.count)
        for entry in entries { self.entry(entry) }
    }

    mutating func document(_ document: StoredDocument) {
        string(document.path)
        blob(document.body)
        i64(document.version)
        i64(document.createTime)
        i64(document.updateTime)
    }

    mutating func optionalDocument(_ document: StoredDocument?) {
        if let document {
            u8(1)
            self.document(document)
        } else {
            u8(0)
        }
    }

    mutating func bound(_ bound: IndexBound?) {
        if let bound {
            u8(1)
            blob(bound.key)
            bool(bound.inclusive)
        } else {
            u8(0)
        }
    }
}

/// Reads the primitives written by ``WireWriter`` from untrusted bytes. Every read checks the remaining length first
/// and throws ``DocumentsError/Code-swift.struct/corrupted`` instead of reading out of bounds; counts are checked
/// against the bytes left before anything is allocated, so a forged count cannot exhaust memory.
struct WireReader {
    private let base: UnsafeRawBufferPointer
    private var offset = 0
    /// The operation whose message is being decoded, for error messages.
    let operation: DocumentEngineOperation
    /// `"request"` or `"response"`, for error messages (a `StaticString`: nothing is formatted unless decoding fails).
    let direction: StaticString

    init(_ base: UnsafeRawBufferPointer, operation: DocumentEngineOperation, direction: StaticString) {
        self.base = base
        self.operation = operation
        self.direction = direction
    }

    var remaining: Int { base.count - offset }

    func malformed(_ reason: String) -> DocumentsError {
        DocumentsError(
            .corrupted,
            "malformed documents-engine \(operation.rawValue) \(direction): \(reason) at byte \(offset) of "
                + "\(base.count)",
            hint: "the plugin and the host must be built from the same Suite version")
    }

    private mutating func take(_ n: Int) throws -> Int {
        guard n >= 0, n <= remaining else { throw malformed("truncated (needs \(n) more bytes, has \(remaining))") }
        let start = offset
        offset += n
        return start
    }

    mutating func u8() throws -> UInt8 {
        let at = try take(1)
        return base[at]
    }

    mutating func bool() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw malformed("invalid boolean \(other)")
        }
    }

    /// A presence tag: 0 absent, 1 present.
    mutating func present() throws -> Bool {
        switch try u8() {
        case 0: return false
        case 1: return true
        case let other: throw malformed("invalid optional tag \(other)")
        }
    }

    mutating func u32() throws -> UInt32 {
        let at = try take(4)
        return UInt32(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    mutating func i64() throws -> Int64 {
        let at = try take(8)
        return Int64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int64.self))
    }

    /// A count of items each taking at least `minimumSize` bytes; refused when the bytes left cannot hold them.
    mutating func count(minimumSize: Int) throws -> Int {
        let n = Int(try u32())
        guard n <= remaining / max(1, minimumSize) else {
            throw malformed("count \(n) exceeds what the remaining \(remaining) bytes can hold")
        }
        return n
    }

    mutating func blob() throws -> [UInt8] {
        let n = Int(try u32())
        let at = try take(n)
        return Array(UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]))
    }

    mutating func string() throws -> String {
        let n = Int(try u32())
        let at = try take(n)
        return String(decoding: UnsafeRawBufferPointer(rebasing: base[at..<(at + n)]), as: UTF8.self)
    }

    mutating func optionalString() throws -> String? {
        try present() ? try string() : nil
    }

    mutating func optionalBlob() throws -> [UInt8]? {
        try present() ? try blob() : nil
    }

    mutating func optionalInt() throws -> Int? {
        try present() ? Int(truncatingIfNeeded: try i64()) : nil
    }

    mutating func entry() throws -> IndexEntry {
        let index = try string()
        return IndexEntry(index: index, key: try blob())
    }

    mutating func entries() throws -> [IndexEntry] {
        let n = try count(minimumSize: 8)
        var result: [IndexEntry] = []
        result.reserveCapacity(n)
        for _ in 0..<n { result.append(try entry()) }
        return result
    }

    mutating func document() throws -> StoredDocument {
        let path = try string()
        let body = try blob()
        let version = try i64()
        let createTime = try i64()
        return StoredDocument(path: path, body: body, version: version, createTime: createTime, updateTime: try i64())
    }

    mutating func optionalDocument() throws -> StoredDocument? {
        try present() ? try document() : nil
    }

    mutating func bound() throws -> IndexBound? {
        guard try present() else { return nil }
        let key = try blob()
        return IndexBound(key: key, inclusive: try bool())
    }

    /// Fails unless every byte was consumed: trailing bytes mean the two sides disagree on the layout.
    func finish() throws {
        guard remaining == 0 else { throw malformed("\(remaining) unexpected trailing bytes") }
    }
}

/// The smallest encoded sizes, used to bound forged counts.
enum WireSize {
    /// `u32` path length + `u32` body length + three `i64`.
    static let document = 4 + 4 + 24
    /// A presence tag.
    static let optional = 1
}
