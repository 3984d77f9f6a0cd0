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
