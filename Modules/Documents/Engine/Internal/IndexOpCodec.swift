/// Varints and the two encodings of index operations: a change row's `index_ops` and a block's `data`.
enum IndexOpCodec {
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// Reads a varint at `offset` (advancing it); `nil` when the bytes end first or it overflows.
    @inline(__always)
    static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 64 {
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

    static func corrupted(_ what: String) -> DocumentsError {
        DocumentsError(
            .corrupted, "the documents database's index data is corrupted (\(what))",
            hint: "restore the database from a backup")
    }

    /// `index_ops` of a change row whose operations are exactly its own entries (`index_keys`), each a put: a new
    /// document's (since schema v5). A count of zero is never written otherwise (no operations is NULL), so the two
    /// bytes cannot be read as a list of operations.
    static let allOwnEntriesPut: [UInt8] = [0x00, 0x01]

    static func isAllOwnEntriesPut(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count == 2 && bytes[0] == 0x00 && bytes[1] == 0x01
    }

    /// A change row's operations: a varint count, then per operation a kind byte (1 put, 0 removal), the index id
    /// (varint), the key's length (varint) and the key; or ``allOwnEntriesPut``, when they are the row's own entries
    /// (`ownEntries`, in ``OwnEntryList``'s encoding). The path is the row's.
    static func decodeChangeOps(
        _ bytes: UnsafeRawBufferPointer, ownEntries: UnsafeRawBufferPointer?,
        _ body: (_ index: Int64, _ key: UnsafeRawBufferPointer, _ isPut: Bool) -> Void
    ) throws {
        var offset = 0
        if isAllOwnEntriesPut(bytes) {
            guard let own = ownEntries, let count = varint(own, &offset) else { throw corrupted("own entries") }
            for _ in 0..<count {
                guard let index = varint(own, &offset), index <= UInt64(Int64.max),
                    let keyCount = varint(own, &offset), keyCount <= UInt64(own.count - offset)
                else { throw corrupted("own entries") }
                body(Int64(index), UnsafeRawBufferPointer(rebasing: own[offset..<offset + Int(keyCount)]), true)
                offset += Int(keyCount)
            }
            return
        }
        guard let count = varint(bytes, &offset) else { throw corrupted("operation count") }
        for _ in 0..<count {
            guard offset < bytes.count else { throw corrupted("operation") }
            let isPut = bytes[offset] == 1
            offset += 1
            guard let index = varint(bytes, &offset), index <= UInt64(Int64.max),
                let keyCount = varint(bytes, &offset), keyCount <= UInt64(bytes.count - offset)
            else { throw corrupted("operation") }
            body(Int64(index), UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(keyCount)]), isPut)
            offset += Int(keyCount)
        }
    }

    /// The number of operations in a change row's `index_ops` (with its own entries, for ``allOwnEntriesPut``).
    static func changeOpCount(_ bytes: UnsafeRawBufferPointer, ownEntries: UnsafeRawBufferPointer?) -> Int {
        var offset = 0
        let counted = isAllOwnEntriesPut(bytes) ? (ownEntries ?? UnsafeRawBufferPointer(start: nil, count: 0)) : bytes
        return varint(counted, &offset).map { Int(min($0, UInt64(Int.max))) } ?? 0
    }
}
