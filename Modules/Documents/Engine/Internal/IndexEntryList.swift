/// Canonical index-entry lists (sorted by `(index, key)` bytewise, without duplicates) and their compact encoding,
/// which the SQLite engine stores beside each document so an update removes exactly the document's old entries.
package enum IndexEntryList {
    /// `entries` sorted by `(index, key)` bytewise, duplicates removed.
    package static func canonical(_ entries: [IndexEntry]) -> [IndexEntry] {
        if entries.count <= 1 { return entries }
        var inOrder = true
        for i in 1..<entries.count where compare(entries[i - 1], entries[i]) >= 0 {
            inOrder = false
            break
        }
        if inOrder { return entries }
        // Sort positions, not entries: moving an entry retains and releases its name and key.
        let order = entries.indices.sorted { compare(entries[$0], entries[$1]) < 0 }
        var sorted = order.map { entries[$0] }
        var write = 1
        for read in 1..<sorted.count where compare(sorted[read], sorted[write - 1]) != 0 {
            sorted[write] = sorted[read]
            write += 1
        }
        sorted.removeLast(sorted.count - write)
        return sorted
    }

    @inline(__always)
    static func compare(_ a: IndexEntry, _ b: IndexEntry) -> Int {
        let byIndex = compareUTF8(a.index, b.index)
        return byIndex != 0 ? byIndex : compareBytes(a.key, b.key)
    }

    @inline(__always)
    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool { compare(a, b) < 0 }

    /// The entries of `old` missing from `new`, and those of `new` missing from `old` (both canonical).
    static func difference(old: [IndexEntry], new: [IndexEntry]) -> (removed: [IndexEntry], added: [IndexEntry]) {
        sortedDifference(old: old, new: new, compare: compare)
    }

    /// Encodes a list: a varint count, then for each entry a varint length and the index name's UTF-8, a varint
    /// length and the key.
    static func encode(_ entries: [IndexEntry]) -> [UInt8] {
        var out: [UInt8] = []
        var size = 2
        for entry in entries { size += entry.index.utf8.count + entry.key.count + 4 }
        out.reserveCapacity(size)
        IndexOpCodec.appendVarint(UInt64(entries.count), to: &out)
        for entry in entries {
            IndexOpCodec.appendVarint(UInt64(entry.index.utf8.count), to: &out)
            out.append(contentsOf: entry.index.utf8)
            IndexOpCodec.appendVarint(UInt64(entry.key.count), to: &out)
            out.append(contentsOf: entry.key)
        }
        return out
    }

    /// Decodes a list written by ``encode(_:)``; throws ``DocumentsError/Code-swift.struct/corrupted``.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> [IndexEntry] {
        if bytes.isEmpty { return [] }
        var offset = 0
        func corrupted() -> DocumentsError {
            DocumentsError(
                .corrupted,
                "the stored index entries of '\(path)' are corrupted",
                hint: "restore the database from a backup"
            )
        }
        func varint() throws -> Int {
            guard let value = IndexOpCodec.varint(bytes, &offset), value <= UInt64(bytes.count) else {
                throw corrupted()
            }
            return Int(value)
        }
        let count = try varint()
        var entries: [IndexEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let nameLength = try varint()
            guard nameLength <= bytes.count - offset else { throw corrupted() }
            let name = String(
                decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + nameLength]), as: UTF8.self)
            offset += nameLength
            let keyLength = try varint()
            guard keyLength <= bytes.count - offset else { throw corrupted() }
            let key = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + keyLength]))
            offset += keyLength
            entries.append(IndexEntry(index: name, key: key))
        }
        guard offset == bytes.count else { throw corrupted() }
        return entries
    }
}
