/// Validation shared by ``DocumentPath`` and ``CollectionPath``.
enum PathSegments {
    /// Firestore's limit on the number of segments in a path.
    static let maximumSegments = 100
    /// Firestore's limit on the size of one document or collection id, in UTF-8 bytes.
    static let maximumSegmentBytes = 1500

    /// Splits and validates a slash-separated path; `kind` names what the caller wanted, for messages.
    static func split(_ string: String, kind: String) throws -> [String] {
        guard !string.isEmpty else {
            throw DocumentsError(
                .invalidPath, "the \(kind) path is empty",
                hint: kind == "document" ? "give a path such as 'users/u1'" : "give a path such as 'users'")
        }
        if string.utf8.first == UInt8(ascii: "/") || string.utf8.last == UInt8(ascii: "/") {
            throw DocumentsError(
                .invalidPath, "the \(kind) path '\(string)' starts or ends with '/'",
                hint: "remove the leading and trailing slashes, e.g. 'users/u1'")
        }
        // Split on the byte, not the Character: "/" followed by a combining mark is one Character.
        let segments = string.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(Substring($0)) }
        guard segments.count <= maximumSegments else {
            throw DocumentsError(
                .invalidPath, "the \(kind) path has \(segments.count) segments; at most \(maximumSegments) are allowed",
                hint: "nest collections less deeply")
        }
        for segment in segments { try validate(segment: segment, in: string) }
        return segments
    }

    /// Validates one document or collection id.
    static func validate(segment: String, in path: String) throws {
        if segment.isEmpty {
            throw DocumentsError(
                .invalidPath, "the path '\(path)' has an empty segment",
                hint: "remove the doubled '/' (ids cannot be empty)")
        }
        if segment == "." || segment == ".." {
            throw DocumentsError(
                .invalidPath, "the path '\(path)' has a '\(segment)' segment",
                hint: "'.' and '..' are not valid ids; paths are not relative")
        }
        if segment.utf8.count > maximumSegmentBytes {
            throw DocumentsError(
                .invalidPath,
                "an id in the path is \(segment.utf8.count) bytes long; at most \(maximumSegmentBytes) are allowed",
                hint: "use a shorter id")
        }
        if isReserved(segment) {
            throw DocumentsError(
                .invalidPath, "the id '\(segment)' in '\(path)' is reserved",
                hint: "ids of the form __name__ are reserved; rename it")
        }
    }

    /// Validates an id that will become one segment (it must not contain '/').
    static func validate(id: String, kind: String) throws {
        if id.utf8.contains(UInt8(ascii: "/")) {
            throw DocumentsError(
                .invalidPath, "the \(kind) id '\(id)' contains '/'",
                hint: "an id is a single path segment; build nested paths step by step")
        }
        try validate(segment: id, in: id)
    }

    /// Whether `name` has the reserved form `__…__`.
    static func isReserved(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count >= 4 else { return false }
        let underscore = UInt8(ascii: "_")
        var i = utf8.startIndex
        guard utf8[i] == underscore else { return false }
        i = utf8.index(after: i)
        guard utf8[i] == underscore else { return false }
        var j = utf8.index(before: utf8.endIndex)
        guard utf8[j] == underscore else { return false }
        j = utf8.index(before: j)
        return utf8[j] == underscore
    }

    /// Compares two segment lists segment by segment (UTF-8 byte order); fewer segments first on a tie.
    static func compare(_ a: [String], _ b: [String]) -> Int {
        for (x, y) in zip(a, b) {
            let c = UTF8Order.compare(x, y)
            if c != 0 { return c }
        }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }
}
