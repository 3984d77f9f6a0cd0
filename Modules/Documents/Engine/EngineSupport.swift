import Foundation

// Helpers shared by the built-in engines: path checks, the document-name sort key, canonical index entry lists and
// their compact encoding, and precondition checks. Keeping them in one place keeps both engines' behaviour identical.

// MARK: - Byte comparison

/// Compares two byte buffers like `memcmp`, shorter-prefix first: negative, zero or positive.
@inline(__always)
package func compareBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
    let n = min(a.count, b.count)
    if n > 0, let pa = a.baseAddress, let pb = b.baseAddress {
        let r = memcmp(pa, pb, n)
        if r != 0 { return Int(r) }
    }
    return a.count - b.count
}

/// Compares two byte arrays like `memcmp`, shorter-prefix first.
@inline(__always)
package func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in compareBytes(pa, pb) } }
}

/// Compares two strings by their UTF-8 bytes (SQLite's `BINARY` collation), not by Unicode canonical ordering.
@inline(__always)
package func compareUTF8(_ a: String, _ b: String) -> Int {
    if let result = a.utf8.withContiguousStorageIfAvailable({ pa in
        b.utf8.withContiguousStorageIfAvailable { pb in compareBytes(pa, pb) }
    }), let result {
        return result
    }
    var a = a
    var b = b
    return a.withUTF8 { pa in b.withUTF8 { pb in compareBytes(pa, pb) } }
}

// MARK: - Paths

/// Engine-level checks and encodings of document paths.
///
/// Engines accept any path of an even number (≥ 2) of non-empty `/`-separated segments; the store validates the rest
/// (`.`/`..`, length, segment count) with `DocumentPath`.
package enum EnginePath {
    /// A document path split at its last `/`.
    package struct Parts {
        /// The collection path holding the document, e.g. `users/u1/orders`.
        package var parent: String
        /// The document ID, the last segment.
        package var id: String
        /// The collection ID, the last segment of `parent`.
        package var collectionID: String
    }

    /// Splits a document path, or throws ``DocumentsError/Code-swift.struct/invalidPath``.
    package static func split(document path: String) throws -> Parts {
        let segments = try segmentRanges(path)
        guard segments.count >= 2, segments.count % 2 == 0 else {
            throw DocumentsError(
                .invalidPath,
                "'\(path)' is not a document path: it has \(segments.count) segment(s)",
                hint: "a document path has an even number of segments, e.g. users/u1"
            )
        }
        let utf8 = path.utf8
        let last = segments[segments.count - 1]
        let collection = segments[segments.count - 2]
        let parentEnd = utf8.index(last.lowerBound, offsetBy: -1)
        return Parts(
            parent: String(Substring(utf8[utf8.startIndex..<parentEnd])),
            id: String(Substring(utf8[last])),
            collectionID: String(Substring(utf8[collection]))
        )
    }

    /// Checks a collection path (an odd number of non-empty segments) and returns its collection ID.
    package static func collectionID(ofCollection path: String) throws -> String {
        let segments = try segmentRanges(path)
        guard segments.count % 2 == 1 else {
            throw DocumentsError(
                .invalidPath,
                "'\(path)' is not a collection path: it has \(segments.count) segment(s)",
                hint: "a collection path has an odd number of segments, e.g. users or users/u1/orders"
            )
        }
        return String(Substring(path.utf8[segments[segments.count - 1]]))
    }

    /// Checks a collection ID (one non-empty segment without `/`).
    package static func checkCollectionID(_ id: String) throws {
        guard !id.isEmpty, !id.utf8.contains(UInt8(ascii: "/")) else {
            throw DocumentsError(
                .invalidPath,
                "'\(id)' is not a collection ID",
                hint: "a collection group is named by one segment, e.g. orders"
            )
        }
    }

    private static func segmentRanges(_ path: String) throws -> [Range<String.UTF8View.Index>] {
        let utf8 = path.utf8
        var ranges: [Range<String.UTF8View.Index>] = []
        var start = utf8.startIndex
        var i = start
        while true {
            if i == utf8.endIndex || utf8[i] == UInt8(ascii: "/") {
                guard start < i else {
                    throw DocumentsError(
                        .invalidPath,
                        path.isEmpty ? "the path is empty" : "'\(path)' has an empty segment",
                        hint: "segments are separated by single '/' with none at either end"
                    )
                }
                ranges.append(start..<i)
                if i == utf8.endIndex { break }
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        return ranges
    }

    /// An order-preserving key for a path in Firestore's document-name order: segment by segment, each segment by
    /// its UTF-8 bytes, a path before any path it is a prefix of.
    ///
    /// Each segment is written with `0x00` escaped as `0x00 0xFF` and ended by `0x00 0x01`, so `memcmp` order of the
    /// keys is that order.
    package static func nameKey(_ path: String) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(path.utf8.count + 8)
        appendNameKey(path, to: &key)
        return key
    }

    /// Appends the ``nameKey(_:)`` of `path` to `key`.
    static func appendNameKey(_ path: String, to key: inout [UInt8]) {
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                key.append(0x00)
                key.append(0x01)
            case 0x00:
                key.append(0x00)
                key.append(0xFF)
            default:
                key.append(byte)
            }
        }
        key.append(0x00)
        key.append(0x01)
    }

    /// Where a listing of collection `parent` starts, given an `after` path in document-name order.
    package enum CollectionStart: Equatable {
        /// Every document of the collection.
        case all
        /// No document of the collection comes after the cursor.
        case none
        /// Documents whose ID is greater (bytewise) than this ID.
        case afterID(String)
    }

    /// Resolves `after` (any path) against the documents of collection `parent`.
    package static func collectionStart(parent: String, after: String?) -> CollectionStart {
        guard let after else { return .all }
        let prefix = nameKey(parent)
        let cursor = nameKey(after)
        if cursor.count > prefix.count, cursor.starts(with: prefix) {
            // The cursor is inside the collection: a document of it, or a descendant of one. Either way, the documents
            // after it are those whose ID is greater than the cursor's next segment.
            let rest = cursor[prefix.count...]
            var id: [UInt8] = []
            var i = rest.startIndex
            while i < rest.endIndex {
                let byte = rest[i]
                if byte == 0x00, rest.index(after: i) < rest.endIndex {
                    let next = rest[rest.index(after: i)]
                    if next == 0x01 { break }
                    id.append(0x00)
                    i = rest.index(i, offsetBy: 2)
                    continue
                }
                id.append(byte)
                i = rest.index(after: i)
            }
            return .afterID(String(decoding: id, as: UTF8.self))
        }
        return compareBytes(cursor, prefix) <= 0 ? .all : .none
    }
}

// MARK: - Index entries

/// The elements of sorted, duplicate-free `old` missing from `new`, and those of `new` missing from `old`.
func sortedDifference<T>(old: [T], new: [T], compare: (T, T) -> Int) -> (removed: [T], added: [T]) {
    if old.isEmpty { return ([], new) }
    if new.isEmpty { return (old, []) }
    var removed: [T] = []
    var added: [T] = []
    var i = 0
    var j = 0
    while i < old.count, j < new.count {
        let c = compare(old[i], new[j])
        if c == 0 {
            i += 1
            j += 1
        } else if c < 0 {
            removed.append(old[i])
            i += 1
        } else {
            added.append(new[j])
            j += 1
        }
    }
    removed.append(contentsOf: old[i...])
    added.append(contentsOf: new[j...])
    return (removed, added)
}

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

// MARK: - Preconditions

extension WritePrecondition {
    /// Whether a write under this precondition may find no document (a put may then create it at once).
    var allowsAbsence: Bool {
        switch self {
        case .none, .exists(false): true
        case .exists(true), .version: false
        }
    }

    /// Throws ``DocumentsError/Code-swift.struct/preconditionFailed`` unless the precondition holds for a document
    /// whose current version is `currentVersion` (`nil` when it does not exist).
    package func check(path: String, currentVersion: Int64?) throws {
        switch self {
        case .none:
            return
        case .exists(true):
            if currentVersion == nil {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' does not exist",
                    hint: "nothing was written; the write required an existing document"
                )
            }
        case .exists(false):
            if currentVersion != nil {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' already exists",
                    hint: "nothing was written; the write required that the document not exist"
                )
            }
        case .version(let expected):
            guard let currentVersion else {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' does not exist (expected version \(expected))",
                    hint: "nothing was written; re-read the document and retry"
                )
            }
            if currentVersion != expected {
                throw DocumentsError(
                    .preconditionFailed,
                    "'\(path)' is at version \(currentVersion), expected \(expected)",
                    hint: "nothing was written; re-read the document and retry"
                )
            }
        }
    }
}

/// How a commit's mutations map to change-log records: one record per distinct path, in order of first appearance,
/// with the path's final state.
struct ChangeSlots: Sendable {
    /// For each record, the position of the last mutation of its path.
    var last: [Int]
    /// For each mutation, the position of its path's record.
    var slot: [Int]

    init(_ mutations: [DocumentMutation]) {
        if mutations.count == 1 {
            last = [0]
            slot = [0]
            return
        }
        // Paths are one when their bytes are (not when canonically equivalent, as Swift's strings would be).
        var slotOfPath = ExactKeyDictionary<Int>()
        last = []
        last.reserveCapacity(mutations.count)
        slot = []
        slot.reserveCapacity(mutations.count)
        for (i, mutation) in mutations.enumerated() {
            if let existing = slotOfPath[mutation.path] {
                last[existing] = i
                slot.append(existing)
            } else {
                slotOfPath[mutation.path] = last.count
                slot.append(last.count)
                last.append(i)
            }
        }
    }
}

/// A commit's check-only mutations (``DocumentMutation/Kind-swift.enum/check``) apart from its writes: an engine
/// applies the writes as before and verifies each check, in the same atomic step, against the state the writes before
/// it leave.
struct CommitChecks: Sendable {
    struct Check: Sendable {
        /// The check's position among all mutations.
        var position: Int
        var path: String
        var precondition: WritePrecondition
        /// The position in ``CommitChecks/writes`` of the last write of the same path before the check, if any.
        var afterWrite: Int?
    }

    /// The mutations that write, in order.
    var writes: [DocumentMutation]
    var checks: [Check] = []
    /// The number of mutations, checks included.
    let count: Int

    init(_ mutations: [DocumentMutation]) {
        count = mutations.count
        guard mutations.contains(where: { if case .check = $0.kind { true } else { false } }) else {
            writes = mutations
            return
        }
        writes = []
        var lastWrite: [String: Int] = [:]
        for (position, mutation) in mutations.enumerated() {
            if case .check = mutation.kind {
                checks.append(
                    Check(
                        position: position, path: mutation.path, precondition: mutation.precondition,
                        afterWrite: lastWrite[mutation.path]))
            } else {
                lastWrite[mutation.path] = writes.count
                writes.append(mutation)
            }
        }
    }

    /// Verifies the checks that no earlier write of the commit shadows, against `currentVersion(path)` (`nil`: the
    /// document does not exist): call it before applying the writes.
    func verifyUnshadowed(currentVersion: (String) throws -> Int64?) throws {
        for check in checks where check.afterWrite == nil && check.precondition != .none {
            try check.precondition.check(path: check.path, currentVersion: try currentVersion(check.path))
        }
    }

    /// Verifies the checks that follow a write of their path, against the writes' `results`.
    func verifyShadowed(results: [StoredDocument?]) throws {
        for check in checks {
            guard let write = check.afterWrite else { continue }
            try check.precondition.check(path: check.path, currentVersion: results[write]?.version)
        }
    }

    /// `result` (of the writes) with a `nil` document at each check's position.
    func merge(_ result: CommitResult) -> CommitResult {
        if checks.isEmpty { return result }
        var documents: [StoredDocument?] = Array(repeating: nil, count: count)
        var next = 0
        var checkIndex = 0
        for position in 0..<count {
            if checkIndex < checks.count, checks[checkIndex].position == position {
                checkIndex += 1
            } else {
                documents[position] = next < result.documents.count ? result.documents[next] : nil
                next += 1
            }
        }
        return CommitResult(sequence: result.sequence, documents: documents)
    }
}

extension EnginePath {
    /// The collection ids under the document `parentPath` (the root when `nil`), sorted bytewise, from an engine's
    /// sorted set of the collection paths holding documents ("parents"), read by `seek(lower, inclusive, upper)`: the
    /// smallest parent at or after `lower` (after it when not `inclusive`) and below `upper` (unbounded when `nil`),
    /// or `nil`. A skip scan: a few seeks per collection id however many documents there are.
    package static func collectionIDs(
        under parentPath: String?, seek: (_ lower: String, _ inclusive: Bool, _ upper: String?) async throws -> String?
    ) async rethrows -> [String] {
        let prefix = parentPath.map { $0 + "/" } ?? ""
        // Parents under the prefix sort in [prefix, prefix with its final "/" raised to "0").
        let upper = parentPath.map { $0 + "0" }
        var ids = Set<String>()
        var next = try await seek(prefix, true, upper)
        while let parent = next, parent.hasPrefix(prefix) {
            let id = String(parent.dropFirst(prefix.count).prefix { $0 != "/" })
            ids.insert(id)
            // `prefix + id` itself is followed by ids extending it (`id-x`, bytes below "/"), then by the deeper
            // collections of `id` (`id/…`), which end below `id0`.
            next =
                parent == prefix + id
                ? try await seek(parent, false, upper) : try await seek(prefix + id + "0", true, upper)
        }
        return ids.sorted { compareBytes(Array($0.utf8), Array($1.utf8)) < 0 }
    }
}
