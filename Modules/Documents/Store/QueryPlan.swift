public import SuiteCore

/// How a query ran: the access path (index or scan), the work done and the results. JSON-friendly for
/// `suite docs query --explain`.
public struct QueryPlan: Sendable, Hashable, Codable {
    /// One access path (one `and` branch of the query; `or` / `in` queries have several).
    public struct Step: Sendable, Hashable, Codable {
        /// `index scan`, `index intersection`, `collection scan`, `collection group scan` or `document lookup`.
        public var access: String
        /// The engine indexes read (empty for scans and lookups).
        public var indexes: [String]
        /// Human description: index fields, range, direction.
        public var detail: String
    }

    /// The collection path, or the collection id for a group query.
    public var target: String
    /// Whether the query is a collection-group query.
    public var collectionGroup: Bool
    /// `index scan`, `index intersection`, `index union` (several branches), `collection scan`,
    /// `collection group scan`, `document lookup` or `empty` (a filter that cannot match).
    public var strategy: String
    /// Every engine index read.
    public var indexes: [String]
    /// Whether any step read a whole collection (only queries without filters or order-by do).
    public var usesCollectionScan: Bool
    /// The access paths, one per branch.
    public var steps: [Step]
    /// Index entries read from the engine.
    public var indexEntriesScanned: Int
    /// Documents read from the engine (including those a collection scan read and rejected).
    public var documentsRead: Int
    /// Documents returned.
    public var results: Int

    /// The plan as JSON.
    public var json: JSONValue {
        .object([
            "target": .string(target),
            "collectionGroup": .bool(collectionGroup),
            "strategy": .string(strategy),
            "indexes": .array(indexes.map(JSONValue.string)),
            "usesCollectionScan": .bool(usesCollectionScan),
            "steps": .array(
                steps.map {
                    .object([
                        "access": .string($0.access), "indexes": .array($0.indexes.map(JSONValue.string)),
                        "detail": .string($0.detail),
                    ])
                }),
            "indexEntriesScanned": .int(Int64(indexEntriesScanned)),
            "documentsRead": .int(Int64(documentsRead)),
            "results": .int(Int64(results)),
        ])
    }
}
