/// A comparison in a query filter, with Firestore's operators.
public enum FilterOperator: String, Sendable, Hashable, Codable, CaseIterable {
    /// The field equals the value (`1 == 1.0`).
    case equal = "=="
    /// The field exists, is not null and differs from the value.
    case notEqual = "!="
    /// The field is less than the value, within the value's type.
    case less = "<"
    /// The field is less than or equal to the value, within the value's type.
    case lessOrEqual = "<="
    /// The field is greater than the value, within the value's type.
    case greater = ">"
    /// The field is greater than or equal to the value, within the value's type.
    case greaterOrEqual = ">="
    /// The field equals one of up to 30 values.
    case `in` = "in"
    /// The field exists, is not null and equals none of up to 10 values (none at all when the list holds null).
    case notIn = "not-in"
    /// The array field contains the value.
    case arrayContains = "array-contains"
    /// The array field contains one of up to 30 values.
    case arrayContainsAny = "array-contains-any"

    /// Parses `==`, `!=`, `<`, `<=`, `>`, `>=`, `in`, `not-in`, `array-contains`, `array-contains-any` (also `=`).
    public init(parsing text: String) throws {
        if text == "=" {
            self = .equal
            return
        }
        guard let op = FilterOperator(rawValue: text.lowercased()) else {
            throw DocumentsError(
                .invalidQuery, "unknown operator '\(text)'",
                hint: "use one of " + FilterOperator.allCases.map(\.rawValue).joined(separator: ", "))
        }
        self = op
    }

    var isRange: Bool { self == .less || self == .lessOrEqual || self == .greater || self == .greaterOrEqual }
    var isInequality: Bool { isRange || self == .notEqual || self == .notIn }
}

/// A query filter: a field comparison, or an `and` / `or` of filters.
///
/// ```swift
/// let q = users.whereFilter(.or([
///     .whereField("city", .equal, .string("Paris")),
///     .and([.whereField("city", .equal, .string("Lyon")), .whereField("points", .greater, .int(100))]),
/// ]))
/// ```
public struct Filter: Sendable, Hashable {
    indirect enum Node: Sendable, Hashable {
        case field(FieldPath, FilterOperator, DocumentValue)
        case and([Filter])
        case or([Filter])
        case invalid(String)
    }

    let node: Node

    /// A comparison of `field` (a dotted path, or `__name__` for the document id) with `value`.
    public static func whereField(_ field: String, _ op: FilterOperator, _ value: DocumentValue) -> Filter {
        do {
            return Filter(node: .field(try FieldPath(field), op, value))
        } catch {
            return Filter(node: .invalid("invalid field path '\(field)' in a filter: \(error)"))
        }
    }

    /// A comparison of `field` with `value`.
    public static func whereField(_ field: FieldPath, _ op: FilterOperator, _ value: DocumentValue) -> Filter {
        Filter(node: .field(field, op, value))
    }

    /// Every filter must match.
    public static func and(_ filters: [Filter]) -> Filter { Filter(node: .and(filters)) }

    /// At least one filter must match.
    public static func or(_ filters: [Filter]) -> Filter { Filter(node: .or(filters)) }
}

/// One order-by clause.
public struct QueryOrder: Sendable, Hashable, Codable {
    /// The field (``FieldPath/documentID`` for the document name).
    public var field: FieldPath
    /// Descending instead of ascending.
    public var descending: Bool

    /// Creates an order-by clause.
    public init(field: FieldPath, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }

    private enum CodingKeys: String, CodingKey { case field, descending }
    /// Decodes `{"field": "a.b", "descending": false}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        field = try FieldPath(try container.decode(String.self, forKey: .field))
        descending = try container.decodeIfPresent(Bool.self, forKey: .descending) ?? false
    }
    /// Encodes `{"field": "a.b", "descending": false}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(field.canonicalString, forKey: .field)
        try container.encode(descending, forKey: .descending)
    }
}

/// A query cursor position.
struct QueryCursor: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case values([DocumentValue])
        case snapshot(DocumentSnapshot)
    }
    var source: Source
    /// Whether the position itself is included (startAt / endAt) or not (startAfter / endBefore).
    var inclusive: Bool
}

/// A query over a collection or a collection group: filters, orders, limits, cursors and a field mask. Build it from
/// ``CollectionReference`` or ``DocumentStore/collectionGroup(_:)``; it is a value, each method returns a new query.
///
/// ```swift
/// let page = try await store.collection("users")
///     .whereField("points", isGreaterThanOrEqualTo: 10)
///     .order(by: "points", descending: true)
///     .limit(to: 20)
///     .getDocuments()
/// ```
///
/// Rules (Firestore's): with inequality filters (`<`, `<=`, `>`, `>=`, `!=`, `not-in`) on one field, a query that has
/// order-by clauses orders by that field first; inequalities on several fields are allowed — the fields not ordered
/// explicitly are ordered after the explicit ones, by name, and a declared composite index serves the query (the
/// error without it names the index to add); at most one `array-contains` or
/// `array-contains-any`; `in` and `array-contains-any` take at most 30 values, `not-in` at most 10; `not-in` cannot be
/// combined with `!=`, `in`, `array-contains-any` or `or`; an `or` expands to at most 30 `and` branches. A range filter
/// only matches values of its value's type (`points < 5` matches numbers only). Ordering by a field excludes documents
/// that lack it.
public struct Query: Sendable {
    /// What the query reads.
    public enum Target: Sendable, Hashable {
        /// One collection.
        case collection(CollectionPath)
        /// Every collection with this id.
        case group(String)
    }

    /// The store.
    public let store: DocumentStore
    /// The collection or collection group.
    public let target: Target
    var filters: [Filter] = []
    var orders: [QueryOrder] = []
    var limitValue: Int?
    var limitToLast = false
    var startCursor: QueryCursor?
    var endCursor: QueryCursor?
    var mask: [FieldPath]?
    var deferredError: String?

    init(store: DocumentStore, target: Target) {
        self.store = store
        self.target = target
    }

    /// `users`, or `orders (collection group)`.
    public var targetDescription: String {
        switch target {
        case .collection(let path): path.string
        case .group(let id): "\(id) (collection group)"
        }
    }
}

/// Anything a query can be built from: a ``Query`` or a ``CollectionReference``.
public protocol QueryConvertible: Sendable {
    /// The query.
    var query: Query { get }
}

extension Query: QueryConvertible {
    /// The query itself.
    public var query: Query { self }
}

extension CollectionReference: QueryConvertible {}

extension QueryConvertible {
    // MARK: Filters

    /// Adds a filter (combined with the others by `and`).
    public func whereFilter(_ filter: Filter) -> Query {
        var q = query
        q.filters.append(filter)
        return q
    }

    /// Adds `field op value` (`field` is a dotted path, or `__name__` for the document id).
    public func whereField(_ field: String, _ op: FilterOperator, _ value: DocumentValue) -> Query {
        whereFilter(.whereField(field, op, value))
    }

    /// Adds `field op value`.
    public func whereField(_ field: FieldPath, _ op: FilterOperator, _ value: DocumentValue) -> Query {
        whereFilter(.whereField(field, op, value))
    }

    /// `field == value`.
    public func whereField(_ field: String, isEqualTo value: DocumentValue) -> Query {
        whereField(field, .equal, value)
    }
    /// `field != value` (the field must exist and not be null).
    public func whereField(_ field: String, isNotEqualTo value: DocumentValue) -> Query {
        whereField(field, .notEqual, value)
    }
    /// `field < value`.
    public func whereField(_ field: String, isLessThan value: DocumentValue) -> Query {
        whereField(field, .less, value)
    }
    /// `field <= value`.
    public func whereField(_ field: String, isLessThanOrEqualTo value: DocumentValue) -> Query {
        whereField(field, .lessOrEqual, value)
    }
    /// `field > value`.
    public func whereField(_ field: String, isGreaterThan value: DocumentValue) -> Query {
        whereField(field, .greater, value)
    }
    /// `field >= value`.
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: DocumentValue) -> Query {
        whereField(field, .greaterOrEqual, value)
    }
    /// `field in values` (at most 30).
    public func whereField(_ field: String, in values: [DocumentValue]) -> Query {
        whereField(field, .in, .array(values))
    }
    /// `field not-in values` (at most 10).
    public func whereField(_ field: String, notIn values: [DocumentValue]) -> Query {
        whereField(field, .notIn, .array(values))
    }
    /// The array field contains `value`.
    public func whereField(_ field: String, arrayContains value: DocumentValue) -> Query {
        whereField(field, .arrayContains, value)
    }
    /// The array field contains one of `values` (at most 30).
    public func whereField(_ field: String, arrayContainsAny values: [DocumentValue]) -> Query {
        whereField(field, .arrayContainsAny, .array(values))
    }

    // MARK: Order, limits, cursors, mask

    /// Orders by `field` (a dotted path, or `__name__`), after any previous order-by.
    public func order(by field: String, descending: Bool = false) -> Query {
        do {
            return order(by: try FieldPath(field), descending: descending)
        } catch {
            var q = query
            q.deferredError = "invalid field path '\(field)' in order(by:): \(error)"
            return q
        }
    }

    /// Orders by `field`.
    public func order(by field: FieldPath, descending: Bool = false) -> Query {
        var q = query
        q.orders.append(QueryOrder(field: field, descending: descending))
        return q
    }

    /// Returns at most `count` documents (the first ones).
    public func limit(to count: Int) -> Query {
        var q = query
        q.limitValue = count
        q.limitToLast = false
        return q
    }

    /// Returns at most `count` documents (the first ones).
    public func limit(_ count: Int) -> Query { limit(to: count) }

    /// Returns the last `count` documents, in query order (needs an order-by).
    public func limit(toLast count: Int) -> Query {
        var q = query
        q.limitValue = count
        q.limitToLast = true
        return q
    }

    // A query has one start and one end cursor: of several start (or end) cursors, the last one set wins.
    // A cursor without values is an error when the query runs.

    /// Starts at the position given by values of the order-by fields (inclusive).
    public func start(at values: [DocumentValue]) -> Query { withStart(.values(values), inclusive: true) }
    /// Starts after the position given by values of the order-by fields.
    public func start(after values: [DocumentValue]) -> Query { withStart(.values(values), inclusive: false) }
    /// Ends at the position given by values of the order-by fields (inclusive).
    public func end(at values: [DocumentValue]) -> Query { withEnd(.values(values), inclusive: true) }
    /// Ends before the position given by values of the order-by fields.
    public func end(before values: [DocumentValue]) -> Query { withEnd(.values(values), inclusive: false) }

    /// Starts at a document (its order-by values, then its name).
    public func start(atDocument snapshot: DocumentSnapshot) -> Query {
        withStart(.snapshot(snapshot), inclusive: true)
    }
    /// Starts after a document: the next page after `snapshot`.
    public func start(afterDocument snapshot: DocumentSnapshot) -> Query {
        withStart(.snapshot(snapshot), inclusive: false)
    }
    /// Ends at a document (inclusive).
    public func end(atDocument snapshot: DocumentSnapshot) -> Query { withEnd(.snapshot(snapshot), inclusive: true) }
    /// Ends before a document.
    public func end(beforeDocument snapshot: DocumentSnapshot) -> Query {
        withEnd(.snapshot(snapshot), inclusive: false)
    }

    /// Returns only the listed fields of each document (a field mask); dotted paths allowed.
    public func select(_ fields: [String]) -> Query {
        var q = query
        do {
            q.mask = try fields.map { try FieldPath($0) }
        } catch {
            q.deferredError = "invalid field path in select: \(error)"
        }
        return q
    }

    /// Returns only the listed fields of each document.
    public func select(fieldPaths fields: [FieldPath]) -> Query {
        var q = query
        q.mask = fields
        return q
    }

    private func withStart(_ source: QueryCursor.Source, inclusive: Bool) -> Query {
        var q = query
        q.startCursor = QueryCursor(source: source, inclusive: inclusive)
        return q
    }

    private func withEnd(_ source: QueryCursor.Source, inclusive: Bool) -> Query {
        var q = query
        q.endCursor = QueryCursor(source: source, inclusive: inclusive)
        return q
    }

    // MARK: Running

    /// Runs the query. Costs the number of documents returned (at least 1 read) — nothing when it shares an identical
    /// running query's execution (``DocumentStore/Options/queryCoalescing``). Over the store's query-rate limit
    /// (``DocumentStore/Options/queryRateLimit``) it waits for its turn or fails, as the limit says.
    public func getDocuments() async throws -> QuerySnapshot {
        try await query.store.runQuery(query, whenRateLimited: nil)
    }

    /// Runs the query; over the store's query-rate limit, waits for its turn (``QueryRateLimit/Behavior/wait``) or
    /// fails at once with ``DocumentsError/Code-swift.struct/rateLimited`` (``QueryRateLimit/Behavior/fail``),
    /// whatever the limit's default. Without a limit, the same as ``getDocuments()``.
    ///
    /// ```swift
    /// let page = try await store.collection("orders").limit(to: 20).getDocuments(whenRateLimited: .fail)
    /// ```
    public func getDocuments(whenRateLimited behavior: QueryRateLimit.Behavior) async throws -> QuerySnapshot {
        try await query.store.runQuery(query, whenRateLimited: behavior)
    }

    /// Runs the query and reports how: index used (or collection scan), index entries scanned, documents read,
    /// results. It runs on its own (never coalesced) and takes a token of the query-rate limit.
    public func explain() async throws -> QueryPlan {
        try await query.store.admitQuery(nil)
        let result = try await QueryRunner(query: query).run()
        query.store.recordCost(
            kind: "query", collection: query.costCollection, CostCounts(reads: Int64(max(1, result.documents.count))))
        return result.plan
    }

    /// The number of matching documents (respecting a limit). Costs 1 read per 1,000 index entries scanned.
    public func count() async throws -> Int {
        try await aggregate([.count]).get().count ?? 0
    }

    /// The sum of a numeric field over matching documents (non-numbers ignored): an integer when every value is one
    /// and the sum fits, else a double.
    public func sum(_ field: String) async throws -> DocumentValue {
        let snapshot = try await aggregate([.sum(field)]).get()
        return snapshot.values.first?.value ?? .int(0)
    }

    /// The average of a numeric field over matching documents, or `nil` when none has a number there.
    public func average(_ field: String) async throws -> Double? {
        let snapshot = try await aggregate([.average(field)]).get()
        if case .double(let value)? = snapshot.values.first?.value { return value }
        if case .int(let value)? = snapshot.values.first?.value { return Double(value) }
        return nil
    }

    /// An aggregation query (count, sum, average) over this query; `get()` it or listen to it.
    public func aggregate(_ fields: [AggregateField]) -> AggregateQuery {
        AggregateQuery(query: query, fields: fields)
    }
}

extension Query {
    var costCollection: String {
        switch target {
        case .collection(let path): path.collectionID
        case .group(let id): id
        }
    }
}

/// The result of a query.
public struct QuerySnapshot: Sendable {
    /// The matching documents, in query order.
    public var documents: [DocumentSnapshot]
    /// For listener updates: what changed since the previous snapshot (for the first one, every document `added`).
    public var documentChanges: [DocumentChange]
    /// Where the data came from.
    public var metadata = SnapshotMetadata()
    /// A change-log sequence the results reflect at least: the last commit this store made, or for a listener the
    /// last change it applied.
    public var sequence: Int64

    /// The number of documents.
    public var count: Int { documents.count }
    /// Whether there is no document.
    public var isEmpty: Bool { documents.isEmpty }
}

/// How one document changed between two query snapshots.
public struct DocumentChange: Sendable, Hashable {
    /// The kind of change.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The document entered the results.
        case added
        /// The document changed (and possibly moved) within the results.
        case modified
        /// The document left the results.
        case removed
    }

    /// The kind of change.
    public var kind: Kind
    /// The document (for `removed`, as it was last seen in the results).
    public var document: DocumentSnapshot
    /// Position in the previous results; `nil` for `added`.
    public var oldIndex: Int?
    /// Position in the new results; `nil` for `removed`.
    public var newIndex: Int?

    /// Creates a change.
    public init(kind: Kind, document: DocumentSnapshot, oldIndex: Int?, newIndex: Int?) {
        self.kind = kind
        self.document = document
        self.oldIndex = oldIndex
        self.newIndex = newIndex
    }
}
