import Documents
import GRPCCore
import SwiftProtobuf

/// A structured query translated for the store: the query, and what the protocol does around it.
struct TranslatedQuery {
    var query: Query
    /// Documents skipped first (the store's query has no offset: it reads `offset + limit`).
    var offset: Int
    var limit: Int?
    /// For a collection group under a document: only documents below it.
    var scope: String?
    /// The projection, applied to the answers (not to the query, so a transaction records whole documents).
    var mask: [FieldPath]?
    var nearest: Google_Firestore_V1_StructuredQuery.FindNearest?
    /// The collection (or group) the rules judge.
    var target: String
}

extension FirestoreValues {
    /// Translates a structured query under `parent` (a resource name) exactly as Firestore reads it.
    func query(_ structured: Google_Firestore_V1_StructuredQuery, parent: String, store: DocumentStore) throws
        -> TranslatedQuery
    {
        let parentPath = try names.parentPath(parent, what: "parent")
        guard structured.from.count == 1, let selector = structured.from.first else {
            throw RPCError(code: .invalidArgument, message: "A query must name exactly one collection in 'from'")
        }
        var query: Query
        var scope: String?
        let target: String
        do {
            if selector.allDescendants {
                query = try store.collectionGroup(selector.collectionID)
                scope = parentPath.map { $0.string + "/" }
                target = (parentPath.map { $0.string + "/" } ?? "") + "**/" + selector.collectionID
            } else {
                let collection =
                    try parentPath.map { try $0.collection(selector.collectionID) }
                    ?? CollectionPath(selector.collectionID)
                query = try store.collection(collection.string).query
                target = collection.string
            }
        } catch let error as DocumentsError {
            throw RPCError(code: .invalidArgument, message: "Invalid collection id: \(error.message)")
        }
        if structured.hasWhere { query = query.whereFilter(try filter(structured.where, query: query)) }
        for order in structured.orderBy {
            query = query.order(
                by: try Self.fieldPath(order.field.fieldPath, what: "order_by"),
                descending: order.direction == .descending)
        }
        if structured.hasStartAt {
            let values = try structured.startAt.values.map { try value($0, field: "start_at") }
            query = structured.startAt.before ? query.start(at: values) : query.start(after: values)
        }
        if structured.hasEndAt {
            let values = try structured.endAt.values.map { try value($0, field: "end_at") }
            query = structured.endAt.before ? query.end(before: values) : query.end(at: values)
        }
        guard structured.offset >= 0 else {
            throw RPCError(code: .invalidArgument, message: "offset must be zero or positive")
        }
        var limit: Int?
        if structured.hasLimit {
            guard structured.limit.value >= 0 else {
                throw RPCError(code: .invalidArgument, message: "limit must be zero or positive")
            }
            limit = Int(structured.limit.value)
        }
        var mask: [FieldPath]?
        if structured.hasSelect {
            mask = try structured.select.fields.map { try Self.fieldPath($0.fieldPath, what: "select") }
        }
        return TranslatedQuery(
            query: query, offset: Int(structured.offset), limit: limit, scope: scope, mask: mask,
            nearest: structured.hasFindNearest ? structured.findNearest : nil, target: target)
    }

    private func filter(_ filter: Google_Firestore_V1_StructuredQuery.Filter, query: Query) throws -> Filter {
        switch filter.filterType {
        case .compositeFilter(let composite)?:
            let children = try composite.filters.map { try self.filter($0, query: query) }
            guard !children.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "A composite filter must have at least one filter")
            }
            switch composite.op {
            case .and: return .and(children)
            case .or: return .or(children)
            default: throw RPCError(code: .invalidArgument, message: "A composite filter needs op AND or OR")
            }
        case .fieldFilter(let field)?:
            let path = try Self.fieldPath(field.field.fieldPath, what: "filter")
            let operand = try value(field.value, field: field.field.fieldPath)
            let op: FilterOperator
            switch field.op {
            case .lessThan: op = .less
            case .lessThanOrEqual: op = .lessOrEqual
            case .greaterThan: op = .greater
            case .greaterThanOrEqual: op = .greaterOrEqual
            case .equal: op = .equal
            case .notEqual: op = .notEqual
            case .arrayContains: op = .arrayContains
            case .in: op = .in
            case .arrayContainsAny: op = .arrayContainsAny
            case .notIn: op = .notIn
            default:
                throw RPCError(code: .invalidArgument, message: "Unknown filter operator on \(field.field.fieldPath)")
            }
            return .whereField(path, op, operand)
        case .unaryFilter(let unary)?:
            let path = try Self.fieldPath(unary.field.fieldPath, what: "filter")
            switch unary.op {
            case .isNan: return .whereField(path, .equal, .double(.nan))
            case .isNull: return .whereField(path, .equal, .null)
            case .isNotNan: return .whereField(path, .notEqual, .double(.nan))
            case .isNotNull: return .whereField(path, .notEqual, .null)
            default:
                throw RPCError(code: .invalidArgument, message: "Unknown unary operator on \(unary.field.fieldPath)")
            }
        case nil:
            throw RPCError(code: .invalidArgument, message: "A filter must be a field, unary or composite filter")
        }
    }
}
