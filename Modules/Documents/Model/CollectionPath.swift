/// The path of a collection: `users`, or `users/u1/orders` for a subcollection.
///
/// A collection path has an odd number of segments. Creating one validates it:
/// ```swift
/// let users = try CollectionPath("users")
/// let doc = try users.document("u1")            // users/u1
/// try CollectionPath("users/u1")                // throws .invalidPath: a document path
/// ```
public struct CollectionPath: Hashable, Sendable, CustomStringConvertible {
    /// The path as text, e.g. `users/u1/orders`.
    public let string: String
    /// The path's segments, e.g. `["users", "u1", "orders"]`.
    public let segments: [String]

    /// Parses and validates a collection path.
    ///
    /// Throws ``DocumentsError`` `.invalidPath` (with a hint) for an empty path or segment, a `.` or `..` segment,
    /// a leading or trailing `/`, more than 100 segments, a reserved id (`__x__`), or an even number of segments
    /// (a document path).
    public init(_ string: String) throws {
        let segments = try PathSegments.split(string, kind: "collection")
        guard segments.count % 2 == 1 else {
            throw DocumentsError(
                .invalidPath, "'\(string)' is a document path (\(segments.count) segments), not a collection path",
                hint: "a collection path has an odd number of segments, e.g. 'users' or 'users/u1/orders'")
        }
        self.string = string
        self.segments = segments
    }

    /// Creates a path from segments already validated.
    init(validated segments: [String]) {
        self.segments = segments
        self.string = segments.joined(separator: "/")
    }

    /// The collection's id: the last segment (`orders` for `users/u1/orders`).
    public var collectionID: String { segments[segments.count - 1] }

    /// The document that contains this subcollection, or `nil` for a top-level collection.
    public var parent: DocumentPath? {
        segments.count > 1 ? DocumentPath(validated: Array(segments.dropLast())) : nil
    }

    /// The path of document `id` in this collection.
    ///
    /// Throws `.invalidPath` if `id` is empty, contains `/`, is `.` or `..`, is reserved (`__x__`) or is too long.
    public func document(_ id: String) throws -> DocumentPath {
        try PathSegments.validate(id: id, kind: "document")
        guard segments.count + 1 <= PathSegments.maximumSegments else {
            throw DocumentsError(
                .invalidPath, "the path would have more than \(PathSegments.maximumSegments) segments",
                hint: "nest collections less deeply")
        }
        return DocumentPath(validated: segments + [id])
    }

    /// The path of a new document in this collection with an automatically generated id (see `AutoID`).
    public func newDocument() -> DocumentPath {
        DocumentPath(validated: segments + [AutoID.generate()])
    }

    /// The path as text.
    public var description: String { string }

    /// Two paths are equal when their text is equal.
    public static func == (a: CollectionPath, b: CollectionPath) -> Bool { a.string == b.string }

    /// Hashes the path's text.
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
