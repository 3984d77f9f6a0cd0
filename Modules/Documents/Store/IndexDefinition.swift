import Foundation
public import SuiteCore

/// A declared (composite) index, Firestore-style: a collection id, a scope and ordered fields.
///
/// Single-field ascending indexes (and array-contains indexes) exist automatically for every field of every
/// collection; declare an index for queries that order or filter on several fields, or for collection-group queries.
///
/// ```swift
/// try await store.declareIndex(IndexDefinition(collectionID: "users", fields: [
///     .init("city"), .init("points", order: .descending),
/// ]))
/// ```
public struct IndexDefinition: Sendable, Hashable, CustomStringConvertible {
    /// Which collections the index covers.
    public enum Scope: String, Sendable, Hashable, Codable {
        /// Queries on one collection (every collection with this id, at any depth).
        case collection
        /// Collection-group queries over every collection with this id.
        case collectionGroup
    }

    /// How one field is indexed.
    public enum Order: String, Sendable, Hashable, Codable {
        /// Ascending values.
        case ascending
        /// Descending values.
        case descending
        /// Each element of an array field (for `array-contains` / `array-contains-any`).
        case arrayContains

        var shortName: String {
            switch self {
            case .ascending: "asc"
            case .descending: "desc"
            case .arrayContains: "contains"
            }
        }
    }

    /// One field of an index.
    public struct Field: Sendable, Hashable {
        /// The field.
        public var fieldPath: FieldPath
        /// How it is indexed.
        public var order: Order

        /// Creates an index field.
        public init(_ fieldPath: FieldPath, order: Order = .ascending) {
            self.fieldPath = fieldPath
            self.order = order
        }

        /// Parses `field`, `field:asc`, `field:desc` or `field:contains` (the command line's syntax; also
        /// `ascending`, `descending`, `array-contains`, in any case). Any other suffix is an error, so a misspelled
        /// order never becomes part of the field name; a name containing `:` is quoted: \`a:b\`:desc.
        public init(parsing text: String) throws {
            var name = Substring(text)
            var order = Order.ascending
            if !text.hasSuffix("`"), let colon = text.lastIndex(of: ":") {
                let suffix = text[text.index(after: colon)...]
                let known: [String: Order] = [
                    "asc": .ascending, "ascending": .ascending, "desc": .descending, "descending": .descending,
                    "contains": .arrayContains, "array-contains": .arrayContains,
                ]
                guard let parsed = known[suffix.lowercased()] else {
                    throw DocumentsError(
                        .invalidField, "unknown index order '\(suffix)' in '\(text)'",
                        hint: "use FIELD, FIELD:asc, FIELD:desc or FIELD:contains")
                }
                order = parsed
                name = text[..<colon]
            }
            self.init(try FieldPath(String(name)), order: order)
        }

        /// Creates an index field from a dotted path: `try .init("address.city", order: .descending)`.
        public init(_ dotted: String, order: Order = .ascending) throws {
            self.init(try FieldPath(dotted), order: order)
        }

        var spec: String { "\(fieldPath.canonicalString):\(order.shortName)" }
    }

    /// The collection id (last segment of the collection path, e.g. `orders`).
    public var collectionID: String
    /// Collection or collection-group scope.
    public var scope: Scope
    /// The indexed fields, in order.
    public var fields: [Field]

    /// Creates an index definition.
    public init(collectionID: String, scope: Scope = .collection, fields: [Field]) {
        self.collectionID = collectionID
        self.scope = scope
        self.fields = fields
    }

    /// Equal when the collection ids have the same UTF-8 bytes (not Swift's canonical equivalence: collections `é` and
    /// `e\u{301}` are two, each with its own indexes), with the same scope and fields.
    public static func == (a: IndexDefinition, b: IndexDefinition) -> Bool {
        a.collectionID.hasSameBytes(as: b.collectionID) && a.scope == b.scope && a.fields == b.fields
    }

    public func hash(into hasher: inout Hasher) {
        var id = collectionID
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(scope)
        hasher.combine(fields)
    }

    /// `users (city asc, points desc)`, plus `[collection group]` for group scope.
    public var description: String {
        let list = fields.map { "\($0.fieldPath.canonicalString) \($0.order.shortName)" }.joined(separator: ", ")
        return "\(collectionID) (\(list))" + (scope == .collectionGroup ? " [collection group]" : "")
    }

    /// The command that declares this index: `suite docs index add users city:asc points:desc [--group]`.
    public var command: String {
        "suite docs index add \(collectionID) " + fields.map { Self.shellQuoted($0.spec) }.joined(separator: " ")
            + (scope == .collectionGroup ? " --group" : "")
    }

    /// The Swift call that declares this index (the missing-index error's hint; a test compiles its form):
    /// `try await store.declareIndex(IndexDefinition(collectionID: "users", fields: [.init("city"), …]))`.
    public var swiftDeclaration: String {
        let list = fields.map { field -> String in
            let name = field.fieldPath.canonicalString.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            return field.order == .ascending
                ? ".init(\"\(name)\")" : ".init(\"\(name)\", order: .\(field.order.rawValue))"
        }
        let scope = self.scope == .collectionGroup ? "scope: .collectionGroup, " : ""
        return "try await store.declareIndex(IndexDefinition(collectionID: \"\(collectionID)\", \(scope)fields: ["
            + list.joined(separator: ", ") + "]))"
    }

    /// The index as JSON: `{"collection","scope","fields":[{"field","order"}]}`.
    public var json: JSONValue {
        .object([
            "collection": .string(collectionID),
            "scope": .string(scope.rawValue),
            "fields": .array(
                fields.map {
                    .object(["field": .string($0.fieldPath.canonicalString), "order": .string($0.order.rawValue)])
                }),
        ])
    }

    /// Parses ``json``'s format.
    public init(json: JSONValue) throws {
        guard let collection = json["collection"]?.stringValue, let list = json["fields"]?.arrayValue else {
            throw DocumentsError(.corrupted, "malformed index definition: \(json.jsonString)")
        }
        collectionID = collection
        scope = Scope(rawValue: json["scope"]?.stringValue ?? "collection") ?? .collection
        fields = try list.map { item in
            guard let name = item["field"]?.stringValue else {
                throw DocumentsError(.corrupted, "malformed index field: \(item.jsonString)")
            }
            let order = Order(rawValue: item["order"]?.stringValue ?? "ascending") ?? .ascending
            return Field(try FieldPath(name), order: order)
        }
    }

    /// The engine index name for a collection at `collectionPath` (collection scope) or for the group.
    func indexName(collectionPath: String) -> String {
        let spec = fields.map(\.spec).joined(separator: "|")
        switch scope {
        case .collection: return "\(collectionPath)|composite|\(spec)"
        case .collectionGroup: return "*\(collectionID)|composite|\(spec)"
        }
    }

    /// Checks the definition is usable.
    func validate() throws {
        guard !collectionID.isEmpty, !collectionID.contains("/") else {
            throw DocumentsError(
                .invalidPath, "an index names a collection id, not a path: '\(collectionID)'",
                hint: "use the last segment, e.g. 'orders' for users/u1/orders")
        }
        guard !fields.isEmpty else {
            throw DocumentsError(.invalidQuery, "an index needs at least one field")
        }
        if fields.filter({ $0.order == .arrayContains }).count > 1 {
            throw DocumentsError(.invalidQuery, "an index can have at most one array-contains field")
        }
        // A field may appear twice only as its array-contains entry and its ordered value (`tags contains, tags
        // asc`), which a query filtering and ordering on one array field needs.
        let ordered = fields.filter { $0.order != .arrayContains }.map(\.fieldPath)
        if Set(ordered).count != ordered.count {
            throw DocumentsError(.invalidQuery, "an index lists the same field twice: \(description)")
        }
        if fields.contains(where: { $0.fieldPath == FieldPath.documentID }) {
            throw DocumentsError(
                .invalidQuery, "the document id is always the last key of an index; do not list __name__")
        }
        if scope == .collection && fields.count == 1 {
            throw DocumentsError(
                .invalidQuery,
                "single-field indexes exist automatically for every field of a collection: \(description)",
                hint: "declare a composite index (two or more fields), or use --group for a collection group")
        }
    }

    static func shellQuoted(_ text: String) -> String {
        let safe = text.allSatisfy { $0.isLetter || $0.isNumber || "_.:-".contains($0) }
        return safe ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension IndexDefinition: Codable {
    private enum CodingKeys: String, CodingKey { case collection, scope, fields }
    private struct CodableField: Codable {
        var field: String
        var order: Order
    }

    /// Decodes the ``json`` format.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collectionID = try container.decode(String.self, forKey: .collection)
        scope = try container.decodeIfPresent(Scope.self, forKey: .scope) ?? .collection
        fields = try container.decode([CodableField].self, forKey: .fields).map {
            Field(try FieldPath($0.field), order: $0.order)
        }
    }

    /// Encodes the ``json`` format.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collectionID, forKey: .collection)
        try container.encode(scope, forKey: .scope)
        try container.encode(
            fields.map { CodableField(field: $0.fieldPath.canonicalString, order: $0.order) }, forKey: .fields)
    }
}
