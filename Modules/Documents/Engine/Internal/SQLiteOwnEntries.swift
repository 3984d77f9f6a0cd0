import Foundation

/// An index entry with its index named by id (`index_names.id`): how the SQLite engine keeps a document's own entries
/// (`changes.index_keys`, since schema v3). Ids make the list about half as long as names would, and sorting it integer
/// compares instead of string ones.
struct OwnEntry: Hashable {
    var index: Int64
    var key: [UInt8]
}

/// Canonical lists of ``OwnEntry`` (sorted by `(index, key)`, without duplicates), their difference and encoding.
enum OwnEntryList {
    @inline(__always)
    static func compare(_ a: OwnEntry, _ b: OwnEntry) -> Int {
        if a.index != b.index { return a.index < b.index ? -1 : 1 }
        return compareBytes(a.key, b.key)
    }

    /// `entries` sorted by `(index, key)`, duplicates removed.
    ///
    /// Sorts positions by `(index, first 8 key bytes)` — plain integers, so the sort retains and releases nothing —
    /// and compares whole keys only on ties.
    static func canonical(_ entries: [OwnEntry]) -> [OwnEntry] {
        if entries.count <= 1 { return entries }
        struct Slot {
            var index: Int64
            var prefix: UInt64
            var position: Int
        }
        var slots: [Slot] = []
        slots.reserveCapacity(entries.count)
        for position in entries.indices {
            let prefix = entries[position].key.withUnsafeBytes { IndexOpBuffer.prefix($0) }
            slots.append(Slot(index: entries[position].index, prefix: prefix, position: position))
        }
        func compare(_ a: Slot, _ b: Slot) -> Int {
            if a.index != b.index { return a.index < b.index ? -1 : 1 }
            if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
            return compareBytes(entries[a.position].key, entries[b.position].key)
        }
        var inOrder = true
        for i in 1..<slots.count where compare(slots[i - 1], slots[i]) >= 0 {
            inOrder = false
            break
        }
        if inOrder { return entries }
        if slots.count > 64 {
            slots.sort { compare($0, $1) < 0 }
        } else {
            for i in 1..<slots.count {
                let slot = slots[i]
                var j = i
                while j > 0, compare(slots[j - 1], slot) > 0 {
                    slots[j] = slots[j - 1]
                    j -= 1
                }
                slots[j] = slot
            }
        }
        var result: [OwnEntry] = []
        result.reserveCapacity(slots.count)
        for i in slots.indices where i == 0 || compare(slots[i - 1], slots[i]) != 0 {
            result.append(entries[slots[i].position])
        }
        return result
    }

    /// The entries of `old` missing from `new`, and those of `new` missing from `old` (both canonical).
    static func difference(old: [OwnEntry], new: [OwnEntry]) -> (removed: [OwnEntry], added: [OwnEntry]) {
        sortedDifference(old: old, new: new, compare: compare)
    }

    /// A varint count, then per entry the index id (varint), the key's length (varint) and the key.
    static func encode(_ entries: [OwnEntry]) -> [UInt8] {
        var out: [UInt8] = []
        var size = 2
        for entry in entries { size += entry.key.count + 4 }
        out.reserveCapacity(size)
        IndexOpCodec.appendVarint(UInt64(entries.count), to: &out)
        for entry in entries {
            IndexOpCodec.appendVarint(UInt64(entry.index), to: &out)
            IndexOpCodec.appendVarint(UInt64(entry.key.count), to: &out)
            out.append(contentsOf: entry.key)
        }
        return out
    }

    /// Decodes a list written by ``encode(_:)``; throws ``DocumentsError/Code-swift.struct/corrupted``.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: String) throws -> [OwnEntry] {
        if bytes.isEmpty { return [] }
        func corrupted() -> DocumentsError {
            DocumentsError(
                .corrupted, "the stored index entries of '\(path)' are corrupted",
                hint: "restore the database from a backup")
        }
        var offset = 0
        guard let count = IndexOpCodec.varint(bytes, &offset), count <= UInt64(bytes.count) else { throw corrupted() }
        var entries: [OwnEntry] = []
        entries.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let index = IndexOpCodec.varint(bytes, &offset), index <= UInt64(Int64.max),
                let keyCount = IndexOpCodec.varint(bytes, &offset), keyCount <= UInt64(bytes.count - offset)
            else { throw corrupted() }
            entries.append(
                OwnEntry(
                    index: Int64(index),
                    key: [UInt8](UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(keyCount)]))))
            offset += Int(keyCount)
        }
        guard offset == bytes.count else { throw corrupted() }
        return entries
    }
}
