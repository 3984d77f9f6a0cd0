/// The path of a field inside a document: `points`, `address.city`, or a quoted name such as \`a.b\`.c.
///
/// In the dotted form a segment that contains anything but letters, digits and `_` (or starts with a digit) can be
/// quoted with backticks; inside backticks, a backslash escapes a backtick or another backslash.
/// ```swift
/// let city = try FieldPath("address.city")          // ["address", "city"]
/// let dotted = try FieldPath("`a.b`.c")              // ["a.b", "c"]
/// FieldPath.documentID                               // "__name__", the document's id in queries
/// ```
/// Field paths order segment by segment (UTF-8 byte order).
public struct FieldPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The field names along the path, outermost first.
    public let segments: [String]

    /// The special path `__name__` that stands for the document's id (its full path) in queries.
    public static let documentID = FieldPath(validated: ["__name__"])

    /// Parses a dotted field path.
    ///
    /// Throws ``DocumentsError`` `.invalidField` (with a hint) for an empty path, an empty segment (`a..b`, `.a`),
    /// an unterminated backtick, text after a closing backtick that is not a `.`, or one of the characters Firestore
    /// reserves (`~ * / [ ]`) outside backticks.
    public init(_ dotted: String) throws {
        self.segments = try FieldPath.parse(dotted)
    }

    /// Creates a field path from field names, taken literally (no dots or backticks are interpreted).
    ///
    /// Throws `.invalidField` if `segments` is empty or any name is empty.
    public init(segments: [String]) throws {
        guard !segments.isEmpty else {
            throw DocumentsError(
                .invalidField, "a field path needs at least one field name", hint: "e.g. ['address', 'city']")
        }
        for segment in segments where segment.isEmpty {
            throw DocumentsError(
                .invalidField, "a field path cannot contain an empty field name",
                hint: "remove the empty name from \(segments)")
        }
        self.segments = segments
    }

    /// Creates a path from names already validated.
    init(validated segments: [String]) { self.segments = segments }

    /// Whether this is ``documentID`` (`__name__`).
    public var isDocumentID: Bool { segments.count == 1 && segments[0] == "__name__" }

    /// The path with one more field name appended.
    public func appending(_ name: String) throws -> FieldPath {
        try FieldPath(segments: segments + [name])
    }

    /// The dotted form, with backticks around names that are not simple identifiers: address.\`zip-code\`.
    ///
    /// Parsing it with ``init(_:)`` gives back the same path.
    public var canonicalString: String {
        var out = ""
        for (i, segment) in segments.enumerated() {
            if i > 0 { out += "." }
            if FieldPath.isSimple(segment) {
                out += segment
            } else {
                out += "`"
                for ch in segment.unicodeScalars {
                    if ch == "`" || ch == "\\" { out += "\\" }
                    out.unicodeScalars.append(ch)
                }
                out += "`"
            }
        }
        return out
    }

    /// The canonical dotted form.
    public var description: String { canonicalString }

    /// Orders paths segment by segment (UTF-8 byte order); a prefix sorts first.
    public static func < (a: FieldPath, b: FieldPath) -> Bool {
        PathSegments.compare(a.segments, b.segments) < 0
    }

    /// Whether `name` needs no quoting: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isSimple(_ name: String) -> Bool {
        var first = true
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"): break
            case UInt8(ascii: "0")...UInt8(ascii: "9"): if first { return false }
            default: return false
            }
            first = false
        }
        return !first
    }

    private static func parse(_ text: String) throws -> [String] {
        guard !text.isEmpty else {
            throw DocumentsError(
                .invalidField, "the field path is empty", hint: "give a field name such as 'points' or 'address.city'")
        }
        var segments: [String] = []
        var current = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pendingSegment = true  // a segment must follow (start of text or after '.')
        var quotedDone = false
        while let c = scalars.next() {
            if c == "." {
                if current.isEmpty && !quotedDone {
                    throw DocumentsError(
                        .invalidField, "the field path '\(text)' has an empty field name",
                        hint: "remove the extra '.'; quote names containing dots with backticks, e.g. '`a.b`.c'")
                }
                segments.append(current)
                current = ""
                quotedDone = false
                pendingSegment = true
            } else if quotedDone {
                throw DocumentsError(
                    .invalidField, "the field path '\(text)' has text after a closing backtick",
                    hint: "a quoted name must be followed by '.' or the end, e.g. '`a.b`.c'")
            } else if c == "`" {
                guard current.isEmpty else {
                    throw DocumentsError(
                        .invalidField, "the field path '\(text)' has a backtick inside a name",
                        hint: "quote the whole name and escape the backtick: '`a\\`b`'")
                }
                try readQuotedName(&scalars, into: &current, text: text)
                quotedDone = true
            } else if "~*/[]".unicodeScalars.contains(c) {
                throw DocumentsError(
                    .invalidField, "the field path '\(text)' contains '\(c)', which Firestore reserves",
                    hint: "'~', '*', '/', '[' and ']' are allowed only in a name quoted with backticks, e.g. '`a/b`'")
            } else {
                current.unicodeScalars.append(c)
            }
            if c != "." { pendingSegment = false }
        }
        if pendingSegment || (current.isEmpty && !quotedDone) {
            throw DocumentsError(
                .invalidField, "the field path '\(text)' ends with an empty field name",
                hint: "remove the trailing '.'")
        }
        segments.append(current)
        return segments
    }

    /// Reads a backtick-quoted name into `name`, from after its opening backtick through its closing one; a backslash
    /// escapes the character after it.
    private static func readQuotedName(
        _ scalars: inout String.UnicodeScalarView.Iterator, into name: inout String, text: String
    ) throws {
        var closed = false
        while let q = scalars.next() {
            if q == "`" {
                closed = true
                break
            }
            if q == "\\" {
                guard let escaped = scalars.next() else { break }
                name.unicodeScalars.append(escaped)
            } else {
                name.unicodeScalars.append(q)
            }
        }
        guard closed else {
            throw DocumentsError(
                .invalidField, "the field path '\(text)' has an unterminated backtick",
                hint: "close the quoted name with a backtick, e.g. '`a.b`'")
        }
        guard !name.isEmpty else {
            throw DocumentsError(
                .invalidField, "the field path '\(text)' has an empty quoted name",
                hint: "field names cannot be empty")
        }
    }
}
