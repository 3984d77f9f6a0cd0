extension QueryRunner {
    // MARK: Normalization

    static let maximumDisjunctions = 30

    static func invalid(_ message: String, hint: String? = nil) -> DocumentsError {
        DocumentsError(.invalidQuery, message, hint: hint)
    }

    /// Checks a query against Firestore's rules and normalizes it.
    static func normalize(_ query: Query) throws -> NormalizedQuery {
        if let error = query.deferredError { throw invalid(error) }
        let root = Filter.and(query.filters)
        let inequalityFields = try validateFilterTree(root, target: query.target)
        var orders = try effectiveOrders(query, inequalityFields: inequalityFields)
        if let limit = query.limitValue, limit <= 0 {
            throw invalid("limit must be positive (got \(limit))")
        }
        let branches = try expandedBranches(root, target: query.target)
        var start = try cursorBound(query.startCursor, orders: orders, target: query.target)
        var end = try cursorBound(query.endCursor, orders: orders, target: query.target)
        if query.limitToLast {
            orders = orders.map { QueryOrder(field: $0.field, descending: !$0.descending) }
            swap(&start, &end)
        }
        return NormalizedQuery(
            target: query.target, branches: branches, orders: orders, limit: query.limitValue,
            reversed: query.limitToLast, start: start, end: end, mask: query.mask)
    }

    /// Checks the filter tree against Firestore's rules; returns the fields of its inequality filters, sorted.
    private static func validateFilterTree(_ root: Filter, target: Query.Target) throws -> [FieldPath] {
        var all: [FieldFilter] = []
        var hasOr = false
        try collect(root, into: &all, hasOr: &hasOr, target: target)
        let arrayContains = all.filter { $0.op == .arrayContains || $0.op == .arrayContainsAny }
        if arrayContains.count > 1 {
            throw invalid("a query can have at most one array-contains or array-contains-any filter")
        }
        let notIns = all.filter { $0.op == .notIn }
        if notIns.count > 1 { throw invalid("a query can have at most one not-in filter") }
        if !notIns.isEmpty {
            if all.contains(where: { $0.op == .notEqual }) { throw invalid("not-in cannot be combined with !=") }
            if all.contains(where: { $0.op == .in || $0.op == .arrayContainsAny }) || hasOr {
                throw invalid("not-in cannot be combined with in, array-contains-any or or")
            }
        }
        // Inequalities on several fields are allowed, as in Firestore: the fields not ordered explicitly are ordered
        // after the explicit orders, by name; a declared composite index serves them (the planner names it).
        return Set(all.filter { $0.op.isInequality }.map(\.field)).sorted()
    }

    /// The query's orders, checked, with the inequality fields it does not order by and then `__name__` appended.
    private static func effectiveOrders(_ query: Query, inequalityFields: [FieldPath]) throws -> [QueryOrder] {
        let inequalityField = inequalityFields.count == 1 ? inequalityFields.first : nil
        var orders = query.orders
        if inequalityFields.count > 1 {
            for field in inequalityFields where !orders.contains(where: { $0.field == field }) {
                orders.append(QueryOrder(field: field, descending: orders.last?.descending ?? false))
            }
        }
        if let first = orders.first, let inequalityField, first.field != inequalityField {
            throw invalid(
                "the first order-by must be on '\(inequalityField.canonicalString)', the field of the inequality "
                    + "filter (it is on '\(first.field.canonicalString)')",
                hint: "add .order(by: \"\(inequalityField.canonicalString)\") first")
        }
        if let nameIndex = orders.firstIndex(where: { $0.field == FieldPath.documentID }), nameIndex != orders.count - 1
        {
            throw invalid("ordering by the document id (__name__) must come last")
        }
        if Set(orders.map(\.field)).count != orders.count {
            throw invalid("a field appears twice in order-by")
        }
        if query.limitToLast && orders.isEmpty {
            throw invalid("limit(toLast:) needs at least one order-by", hint: "add .order(by: …)")
        }
        if orders.isEmpty, let inequalityField { orders = [QueryOrder(field: inequalityField)] }
        if orders.last?.field != FieldPath.documentID {
            orders.append(QueryOrder(field: FieldPath.documentID, descending: orders.last?.descending ?? false))
        }
        return orders
    }

    /// The filter tree in disjunctive normal form, with `in` / `array-contains-any` expanded.
    private static func expandedBranches(_ root: Filter, target: Query.Target) throws -> [[FieldFilter]] {
        var branches = try dnf(root)
        branches = try branches.flatMap { try expand($0, target: target) }
        if branches.count > maximumDisjunctions {
            throw invalid(
                "the query expands to \(branches.count) disjunctions (or / in / array-contains-any); the limit is "
                    + "\(maximumDisjunctions)")
        }
        return branches
    }

    /// A cursor's values, one per order it gives (document ids as full-path references), and whether it includes
    /// the document at them.
    private static func cursorBound(
        _ cursor: QueryCursor?, orders: [QueryOrder], target: Query.Target
    ) throws -> (values: [DocumentValue], inclusive: Bool)? {
        guard let cursor else { return nil }
        var values: [DocumentValue]
        switch cursor.source {
        case .values(let given):
            guard !given.isEmpty else {
                throw invalid(
                    "a cursor needs at least one value (of the first order-by field)",
                    hint: "give the order-by values to start or end at, or leave the cursor out")
            }
            guard given.count <= orders.count else {
                throw invalid("a cursor has \(given.count) values but the query orders by \(orders.count) fields")
            }
            values = given
        case .snapshot(let snapshot):
            guard let data = snapshot.data else {
                throw invalid("a cursor document must exist ('\(snapshot.path.string)' does not)")
            }
            values = try orders.map { order in
                guard let value = fieldValue(order.field, snapshot.path, data) else {
                    throw invalid(
                        "the cursor document has no field '\(order.field.canonicalString)' used in order-by")
                }
                return value
            }
        }
        for (i, value) in values.enumerated() where orders[i].field == FieldPath.documentID {
            values[i] = try documentIDValue(value, target: target)
        }
        return (values, cursor.inclusive)
    }

    private static func collect(
        _ filter: Filter, into all: inout [FieldFilter], hasOr: inout Bool, target: Query.Target
    )
        throws
    {
        switch filter.node {
        case .invalid(let message): throw invalid(message)
        case .and(let children):
            for child in children { try collect(child, into: &all, hasOr: &hasOr, target: target) }
        case .or(let children):
            if children.isEmpty { throw invalid("an or filter needs at least one filter") }
            if children.count > 1 { hasOr = true }
            for child in children { try collect(child, into: &all, hasOr: &hasOr, target: target) }
        case .field(let field, let op, let value):
            try validate(FieldFilter(field: field, op: op, value: value), target: target)
            all.append(FieldFilter(field: field, op: op, value: value))
        }
    }

    private static func validate(_ filter: FieldFilter, target: Query.Target) throws {
        let name = filter.field.canonicalString
        switch filter.op {
        case .in, .notIn, .arrayContainsAny:
            guard case .array(let list) = filter.value else {
                throw invalid("'\(filter.op.rawValue)' on '\(name)' needs a list of values")
            }
            let maximum = filter.op == .notIn ? 10 : 30
            if list.isEmpty { throw invalid("'\(filter.op.rawValue)' on '\(name)' needs at least one value") }
            if list.count > maximum {
                throw invalid(
                    "'\(filter.op.rawValue)' takes at most \(maximum) values; '\(name)' has \(list.count)",
                    hint: "split the query into several")
            }
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if filter.value == .null || ValueSemantics.isNaN(filter.value) {
                throw invalid("only == and != can compare '\(name)' with null or NaN")
            }
        case .arrayContains:
            if filter.field == FieldPath.documentID {
                throw invalid("array-contains cannot be used on the document id")
            }
        default:
            break
        }
        if filter.field == FieldPath.documentID, filter.op == .arrayContainsAny {
            throw invalid("array-contains-any cannot be used on the document id")
        }
    }

    /// A document-id filter value as a full-path reference.
    static func documentIDValue(_ value: DocumentValue, target: Query.Target) throws -> DocumentValue {
        switch value {
        case .reference(let path):
            _ = try DocumentPath(path)
            return value
        case .string(let id):
            if case .collection(let collection) = target, !id.contains("/") {
                return .reference(try collection.document(id).string)
            }
            let path = try DocumentPath(id)
            return .reference(path.string)
        default:
            throw invalid(
                "a document id is compared with a string id or a path, not \(value.typeName)")
        }
    }

    private static func dnf(_ filter: Filter) throws -> [[FieldFilter]] {
        switch filter.node {
        case .invalid(let message): throw invalid(message)
        case .field(let field, let op, let value): return [[FieldFilter(field: field, op: op, value: value)]]
        case .or(let children):
            var result: [[FieldFilter]] = []
            for child in children {
                result.append(contentsOf: try dnf(child))
                if result.count > maximumDisjunctions * 4 { throw tooManyDisjunctions() }
            }
            return result
        case .and(let children):
            var result: [[FieldFilter]] = [[]]
            for child in children {
                let parts = try dnf(child)
                var next: [[FieldFilter]] = []
                for left in result {
                    for right in parts { next.append(left + right) }
                }
                if next.count > maximumDisjunctions * 4 { throw tooManyDisjunctions() }
                result = next
            }
            return result
        }
    }

    private static func tooManyDisjunctions() -> DocumentsError {
        invalid(
            "the query has too many disjunctions (or / in / array-contains-any); the limit is \(maximumDisjunctions)")
    }

    /// One branch with `in` / `array-contains-any` expanded into several (document-id values normalized).
    private static func expand(_ branch: [FieldFilter], target: Query.Target) throws -> [[FieldFilter]] {
        var result: [[FieldFilter]] = [[]]
        for filter in branch {
            var options: [FieldFilter]
            switch filter.op {
            case .in, .arrayContainsAny:
                guard case .array(let list) = filter.value else { return [] }
                var distinct: [DocumentValue] = []
                for value in list where !distinct.contains(where: { ValueSemantics.equal($0, value) }) {
                    distinct.append(value)
                }
                let op: FilterOperator = filter.op == .in ? .equal : .arrayContains
                options = distinct.map { FieldFilter(field: filter.field, op: op, value: $0) }
            default:
                options = [filter]
            }
            if filter.field == FieldPath.documentID {
                options = try options.map { option in
                    var option = option
                    if case .array(let list) = option.value {
                        option.value = .array(try list.map { try documentIDValue($0, target: target) })
                    } else {
                        option.value = try documentIDValue(option.value, target: target)
                    }
                    return option
                }
            }
            var next: [[FieldFilter]] = []
            for left in result {
                for option in options { next.append(left + [option]) }
            }
            if next.count > maximumDisjunctions { throw tooManyDisjunctions() }
            result = next
        }
        return result
    }
}
