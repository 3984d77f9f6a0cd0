/// The path of a document: `collection/id`, or deeper for subcollections (`users/u1/orders/o7`).
///
/// A document path has an even number of segments (at least two). Creating one validates it:
/// ```swift
/// let path = try DocumentPath("users/u1")      // documentID "u1", collection "users"
/// try DocumentPath("users")                    // throws .invalidPath: a collection path, not a document path
/// ```
/// Paths order segment by segment (UTF-8 byte order), the way Firestore orders document names.
public struct DocumentPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The path as text, e.g. `users/u1`.
    public let string: String
    /// The path's segments, e.g. `["users", "u1"]`.
    public let segments: [String]

    /// Parses and validates a document path.
    ///
    /// Throws ``DocumentsError`` `.invalidPath` (with a hint) for an empty path or segment, a `.` or `..` segment,
    /// a leading or trailing `/`, more than 100 segments, a reserved id (`__x__`), or an odd number of segments
    /// (a collection path).
    public init(_ string: String) throws {
        let segments = try PathSegments.split(string, kind: "document")
        guard segments.count % 2 == 0 else {
            throw DocumentsError(
                .invalidPath,
                "'\(string)' is a collection path (\(segments.count) segment\(segments.count == 1 ? "" : "s")), "
                    + "not a document path",
                hint: "a document path has an even number of segments: add a document id, e.g. '\(string)/<id>'")
        }
        self.string = string
        self.segments = segments
    }

    /// Creates a document path from its segments, validating each one.
    public init(segments: [String]) throws {
        try self.init(segments.joined(separator: "/"))
        guard self.segments.count == segments.count else {
            throw DocumentsError(
                .invalidPath, "a segment of '\(string)' contains '/'",
                hint: "pass one id per segment")
        }
    }

    /// Creates a path from segments already validated.
    init(validated segments: [String]) {
        self.segments = segments
        self.string = segments.joined(separator: "/")
    }

    /// The document's id: the last segment.
    public var documentID: String { segments[segments.count - 1] }

    /// The collection that contains the document.
    public var collection: CollectionPath { CollectionPath(validated: Array(segments.dropLast())) }

    /// The id of the collection that contains the document (`collection.collectionID`, without building the
    /// collection path).
    var collectionID: String { segments[segments.count - 2] }

    /// The path of the collection that contains the document (`collection.string`, without joining segments).
    var collectionString: String {
        let utf8 = string.utf8
        // A valid document path has at least two segments, so it holds a '/'.
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return collection.string }
        return String(Substring(utf8[..<slash]))
    }

    /// The subcollection `id` under this document, e.g. `users/u1` → `users/u1/orders`.
    public func collection(_ id: String) throws -> CollectionPath {
        try PathSegments.validate(id: id, kind: "collection")
        guard segments.count + 1 <= PathSegments.maximumSegments else {
            throw DocumentsError(
                .invalidPath, "the path would have more than \(PathSegments.maximumSegments) segments",
                hint: "nest collections less deeply")
        }
        return CollectionPath(validated: segments + [id])
    }

    /// The path as text.
    public var description: String { string }

    /// Orders paths segment by segment (UTF-8 byte order); a parent sorts before its descendants.
    public static func < (a: DocumentPath, b: DocumentPath) -> Bool {
        PathSegments.compare(a.segments, b.segments) < 0
    }

    /// Two paths are equal when their text is equal.
    public static func == (a: DocumentPath, b: DocumentPath) -> Bool { a.string == b.string }

    /// Hashes the path's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
