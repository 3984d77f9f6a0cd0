import SuiteCore

extension QueryRunner {
    // MARK: Planning

    func plan(_ normalized: NormalizedQuery) async throws -> [BranchPlan] {
        let declared = try await store.indexes()
        return try normalized.branches.map { try planBranch($0, normalized, declared: declared) }
    }

    private func planBranch(_ filters: [FieldFilter], _ q: NormalizedQuery, declared: [IndexDefinition]) throws
        -> BranchPlan
    {
        if let lookup = Self.documentIDLookup(filters, q) { return lookup }
        guard let shape = try Self.branchShape(filters, q) else {
            return BranchPlan(access: .empty, filters: filters, ordered: true, hitExact: true)
        }
        // No filter and no order: read the collection.
        if shape.equalities.isEmpty && shape.orderFields.isEmpty && !shape.residual {
            return BranchPlan(
                access: .collectionScan(descending: shape.nameDescending), filters: filters,
                ordered: !shape.nameDescending, hitExact: true)
        }
        if shape.equalities.isEmpty, shape.orderFields.count == 1, !shape.group {
            return singleFieldScan(shape, q)
        }
        if let plan = declaredIndexScan(shape, q, declared: declared) { return plan }
        if shape.orderFields.isEmpty, !shape.equalities.isEmpty {
            return try equalityScans(shape, q, declared: declared)
        }
        throw missingIndex(q, equalities: shape.equalities, orders: shape.orderFields)
    }

    /// What a branch's filters and the query's orders ask, sorted for planning.
    private struct BranchShape {
        var filters: [FieldFilter]
        var nameDescending: Bool
        /// Deduplicated.
        var equalities: [Equality]
        var equalFields: Set<FieldPath>
        var ranges: [FieldFilter]
        var negations: [FieldFilter]
        /// The documents must be checked: the index read may return documents the filters exclude.
        var residual: Bool
        /// The orders other than by document id and by a field with an equality.
        var orderFields: [QueryOrder]
        var group: Bool
        var collectionPath: String
        var collectionID: String
    }

    /// Document-id equality: a direct lookup (or nothing, for conflicting ids or a path outside the target).
    private static func documentIDLookup(_ filters: [FieldFilter], _ q: NormalizedQuery) -> BranchPlan? {
        let nameEquals = filters.filter { $0.field == FieldPath.documentID && $0.op == .equal }
        guard let first = nameEquals.first else { return nil }
        guard nameEquals.allSatisfy({ ValueSemantics.equal($0.value, first.value) }),
            case .reference(let text) = first.value, let path = try? DocumentPath(text), q.contains(path)
        else {
            return BranchPlan(access: .empty, filters: filters, ordered: true, hitExact: true)
        }
        return BranchPlan(access: .lookup([path]), filters: filters, ordered: false, hitExact: false)
    }

    /// The branch's shape; `nil` when conflicting equalities make it empty.
    private static func branchShape(_ filters: [FieldFilter], _ q: NormalizedQuery) throws -> BranchShape? {
        let nameDescending = q.orders.last?.descending ?? false
        let fieldFilters = filters.filter { $0.field != FieldPath.documentID }
        var equalities: [Equality] = []
        for filter in fieldFilters where filter.op == .equal || filter.op == .arrayContains {
            let contains = filter.op == .arrayContains
            if let existing = equalities.first(where: { $0.field == filter.field && $0.contains == contains }) {
                if ValueSemantics.equal(existing.value, filter.value) { continue }
                if !contains { return nil }
            }
            equalities.append(Equality(field: filter.field, value: filter.value, contains: contains))
        }
        let equalFields = Set(equalities.filter { !$0.contains }.map(\.field))
        let ranges = fieldFilters.filter { $0.op.isRange }
        let negations = fieldFilters.filter { $0.op == .notEqual || $0.op == .notIn }
        // Inequalities on a field that also has an equality are checked on the documents.
        let residual = (ranges + negations).contains { equalFields.contains($0.field) }
        let orderFields = q.orders.filter { $0.field != FieldPath.documentID && !equalFields.contains($0.field) }
        if let last = orderFields.last, last.descending != nameDescending {
            throw Self.invalid(
                "ordering by the document id against the direction of the last order-by is not supported",
                hint: "order __name__ in the same direction as '\(last.field.canonicalString)'")
        }
        let group: Bool
        let collectionPath: String
        let collectionID: String
        switch q.target {
        case .collection(let path):
            group = false
            collectionPath = path.string
            collectionID = path.collectionID
        case .group(let id):
            group = true
            collectionPath = id
            collectionID = id
        }
        return BranchShape(
            filters: filters, nameDescending: nameDescending, equalities: equalities, equalFields: equalFields,
            ranges: ranges, negations: negations, residual: residual, orderFields: orderFields, group: group,
            collectionPath: collectionPath, collectionID: collectionID)
    }

    /// Only an order (and a range) on one field: its single-field index (collection scope).
    private func singleFieldScan(_ shape: BranchShape, _ q: NormalizedQuery) -> BranchPlan {
        let order = shape.orderFields[0]
        var range = ValueRange()
        for filter in shape.ranges where filter.field == order.field { range.add(filter) }
        pushCursors(q, field: order.field, into: &range)
        // The index's keys are bounded (`IndexKey.bounded`): a bound longer than their prefix is widened to it,
        // and a long value cannot be excluded by key; either way the documents decide.
        let bounds = BoundedKeyRange(widening: range.keyBounds(prefix: [], descending: false))
        var excluded = Set<[UInt8]>()
        var inexact = bounds.widened
        for filter in shape.negations where filter.field == order.field {
            // A null never matches `!=` or `not-in`; a `not-in` listing null matches nothing (the documents decide).
            excluded.insert(IndexKey.encode(.null))
            if filter.op == .notIn, case .array(let list) = filter.value, list.contains(.null) { inexact = true }
            let values: [DocumentValue]
            switch filter.value {
            case .array(let list) where filter.op == .notIn: values = list
            default: values = [filter.value]
            }
            for value in values {
                let key = IndexKey.encode(value)
                if IndexKey.exceedsBound(key) { inexact = true } else { excluded.insert(key) }
            }
        }
        let name = IndexPolicy.singleFieldIndex(shape.collectionPath, order.field)
        let scan = ScanRange(
            index: name, lower: bounds.lower, upper: bounds.upper, reverse: order.descending,
            excludedKeys: excluded,
            detail: "\(order.field.canonicalString) \(order.descending ? "descending" : "ascending")"
                + Self.describe(range), empty: bounds.empty, prefixGroups: true)
        return BranchPlan(
            access: .scan(scan), filters: shape.filters, ordered: true, hitExact: !shape.residual && !inexact)
    }

    /// A declared index covering the equalities then the orders, or `nil` when none does.
    private func declaredIndexScan(
        _ shape: BranchShape, _ q: NormalizedQuery, declared: [IndexDefinition]
    ) -> BranchPlan? {
        let (equalities, orderFields, ranges) = (shape.equalities, shape.orderFields, shape.ranges)
        guard
            let (definition, reverse) = Self.findIndex(
                declared, collectionID: shape.collectionID, scope: shape.group ? .collectionGroup : .collection,
                equalities: equalities, orders: orderFields, nameDescending: shape.nameDescending)
        else { return nil }
        var prefix: [UInt8] = []
        var detail: [String] = []
        for field in definition.fields.prefix(equalities.count) {
            guard
                let equality = equalities.first(where: {
                    $0.field == field.fieldPath && $0.contains == (field.order == .arrayContains)
                })
            else { continue }
            IndexKey.append(equality.value, descending: field.order == .descending, to: &prefix)
            detail.append("\(field.fieldPath.canonicalString) \(equality.contains ? "contains" : "==") …")
        }
        var range = ValueRange()
        var descendingField = false
        if let first = orderFields.first {
            for filter in ranges where filter.field == first.field { range.add(filter) }
            pushCursors(q, field: first.field, into: &range)
            descendingField = definition.fields[equalities.count].order == .descending
            detail.append(first.field.canonicalString + Self.describe(range))
        }
        var residual = shape.residual
        if shape.negations.contains(where: { !shape.equalFields.contains($0.field) }) { residual = true }
        // Only the first ordered field bounds the scan; ranges on the others are checked on the documents.
        if ranges.contains(where: { $0.field != orderFields.first?.field }) { residual = true }
        let bounds = range.keyBounds(prefix: prefix, descending: descendingField)
        let scan = ScanRange(
            index: definition.indexName(collectionPath: shape.collectionPath), lower: bounds.lower,
            upper: bounds.upper, reverse: reverse,
            detail: "\(definition.description): " + detail.joined(separator: ", "),
            empty: bounds.empty)
        return BranchPlan(access: .scan(scan), filters: shape.filters, ordered: true, hitExact: !residual)
    }

    /// Equalities only: single-field equality scans, intersected.
    private func equalityScans(
        _ shape: BranchShape, _ q: NormalizedQuery, declared: [IndexDefinition]
    ) throws -> BranchPlan {
        var residual = shape.residual
        var scans: [ScanRange] = []
        for equality in shape.equalities {
            let name: String
            var key = IndexKey.encode(equality.value)
            if shape.group {
                // Needs a declared single-field group index.
                guard
                    let (definition, _) = Self.findIndex(
                        declared, collectionID: shape.collectionID, scope: .collectionGroup, equalities: [equality],
                        orders: [], nameDescending: false)
                else { throw missingIndex(q, equalities: shape.equalities, orders: shape.orderFields) }
                name = definition.indexName(collectionPath: shape.collectionPath)
                if definition.fields[0].order == .descending {
                    key = IndexKey.encode(equality.value, descending: true)
                }
            } else {
                name =
                    equality.contains
                    ? IndexPolicy.containsIndex(shape.collectionPath, equality.field)
                    : IndexPolicy.singleFieldIndex(shape.collectionPath, equality.field)
                // Bounded keys: a long value's key is its prefix and hash; a collision is removed by the document
                // check, so counting needs the documents.
                if IndexKey.exceedsBound(key) {
                    key = IndexKey.bounded(key)
                    residual = true
                }
            }
            scans.append(
                ScanRange(
                    index: name, lower: key, upper: IndexPolicy.successor(of: key), reverse: shape.nameDescending,
                    detail: "\(equality.field.canonicalString) \(equality.contains ? "contains" : "==") "
                        + DocumentJSON.json(from: equality.value).jsonString))
        }
        if residual || !shape.negations.isEmpty || !shape.ranges.isEmpty { residual = true }
        if scans.count == 1 && !shape.group {
            return BranchPlan(access: .scan(scans[0]), filters: shape.filters, ordered: true, hitExact: !residual)
        }
        // One group scan included: group single-field indexes end with the path in the field's direction, so the
        // intersection sorts in memory.
        return BranchPlan(
            access: .intersect(scans, descending: shape.nameDescending), filters: shape.filters, ordered: true,
            hitExact: !residual)
    }

    /// Narrows a scan by the first cursor values when they bound the scanned field (a superset; documents are
    /// checked exactly afterwards).
    private func pushCursors(_ q: NormalizedQuery, field: FieldPath, into range: inout ValueRange) {
        guard let first = q.orders.first, first.field == field else { return }
        if let start = q.start, let value = start.values.first {
            if first.descending {
                range.lowerUpper(value, inclusive: true)
            } else {
                range.raiseLower(value, inclusive: true)
            }
        }
        if let end = q.end, let value = end.values.first {
            if first.descending {
                range.raiseLower(value, inclusive: true)
            } else {
                range.lowerUpper(value, inclusive: true)
            }
        }
    }

    /// A declared index whose fields are the equalities (any order) then the orders (same or all-reversed
    /// directions); returns whether to scan it in reverse.
    static func findIndex(
        _ declared: [IndexDefinition], collectionID: String, scope: IndexDefinition.Scope, equalities: [Equality],
        orders: [QueryOrder], nameDescending: Bool
    ) -> (IndexDefinition, Bool)? {
        candidates: for definition in declared
        where definition.collectionID.hasSameBytes(as: collectionID) && definition.scope == scope
            && definition.fields.count == equalities.count + orders.count
        {
            var remaining = equalities
            for field in definition.fields.prefix(equalities.count) {
                guard
                    let position = remaining.firstIndex(where: {
                        $0.field == field.fieldPath && $0.contains == (field.order == .arrayContains)
                    })
                else { continue candidates }
                remaining.remove(at: position)
            }
            var reverse: Bool?
            for (field, order) in zip(definition.fields.suffix(orders.count), orders) {
                guard field.fieldPath == order.field, field.order != .arrayContains else { continue candidates }
                let inverted = (field.order == .descending) != order.descending
                if let reverse, reverse != inverted { continue candidates }
                reverse = inverted
            }
            if let reverse { return (definition, reverse) }
            // Equalities only: entries end with the path in the last field's direction.
            let lastDescending = definition.fields.last?.order == .descending
            return (definition, lastDescending != nameDescending)
        }
        return nil
    }

    private func missingIndex(_ q: NormalizedQuery, equalities: [Equality], orders: [QueryOrder]) -> DocumentsError {
        let collectionID: String
        let scope: IndexDefinition.Scope
        switch q.target {
        case .collection(let path):
            collectionID = path.collectionID
            scope = .collection
        case .group(let id):
            collectionID = id
            scope = .collectionGroup
        }
        var fields: [IndexDefinition.Field] = []
        for equality in equalities.sorted(by: { $0.field.canonicalString < $1.field.canonicalString })
        where !fields.contains(where: {
            $0.fieldPath == equality.field && ($0.order == .arrayContains) == equality.contains
        }) {
            fields.append(.init(equality.field, order: equality.contains ? .arrayContains : .ascending))
        }
        for order in orders { fields.append(.init(order.field, order: order.descending ? .descending : .ascending)) }
        let definition = IndexDefinition(collectionID: collectionID, scope: scope, fields: fields)
        let kind = scope == .collectionGroup ? "a collection-group index" : "a composite index"
        return DocumentsError(
            .missingIndex,
            "this query needs \(kind) that does not exist: \(definition.description). Create it with: "
                + definition.command,
            hint: "or from Swift: " + definition.swiftDeclaration, underlying: MissingIndex(definition: definition))
    }

    static func describe(_ range: ValueRange) -> String {
        var parts: [String] = []
        if let lower = range.lower {
            parts.append((lower.inclusive ? " >= " : " > ") + DocumentJSON.json(from: lower.value).jsonString)
        }
        if let upper = range.upper {
            parts.append((upper.inclusive ? " <= " : " < ") + DocumentJSON.json(from: upper.value).jsonString)
        }
        return parts.joined(separator: " and")
    }

    // MARK: Explain

    func describe(_ q: NormalizedQuery, _ plans: [BranchPlan], stats: QueryStats, results: Int) -> QueryPlan {
        var steps: [QueryPlan.Step] = []
        var collectionScan = false
        for plan in plans {
            switch plan.access {
            case .empty:
                steps.append(.init(access: "empty", indexes: [], detail: "the filters cannot match"))
            case .lookup(let paths):
                steps.append(
                    .init(
                        access: "document lookup", indexes: [],
                        detail: paths.map(\.string).joined(separator: ", ")))
            case .collectionScan(let descending):
                collectionScan = true
                let isGroup = if case .group = q.target { true } else { false }
                steps.append(
                    .init(
                        access: isGroup ? "collection group scan" : "collection scan", indexes: [],
                        detail: "all documents by name" + (descending ? ", descending" : "")))
            case .scan(let range):
                steps.append(
                    .init(
                        access: "index scan", indexes: [range.index],
                        detail: range.detail + (range.reverse ? " (reverse)" : "")))
            case .intersect(let ranges, _):
                steps.append(
                    .init(
                        access: ranges.count == 1 ? "index scan" : "index intersection", indexes: ranges.map(\.index),
                        detail: ranges.map(\.detail).joined(separator: " ∩ ")))
            }
        }
        let strategy =
            steps.count == 1 ? steps[0].access : (steps.allSatisfy { $0.access == "empty" } ? "empty" : "index union")
        var indexes: [String] = []
        for step in steps { for index in step.indexes where !indexes.contains(index) { indexes.append(index) } }
        let (target, group): (String, Bool) =
            switch q.target {
            case .collection(let path): (path.string, false)
            case .group(let id): (id, true)
            }
        return QueryPlan(
            target: target, collectionGroup: group, strategy: collectionScan && steps.count > 1 ? "union" : strategy,
            indexes: indexes, usesCollectionScan: collectionScan, steps: steps,
            indexEntriesScanned: stats.indexEntriesScanned, documentsRead: stats.documentsRead, results: results)
    }
}

/// The index a query found missing, as the underlying error of its ``DocumentsError/Code-swift.struct/missingIndex``
/// (a server that builds indexes on demand, as Firestore's emulator does, declares it).
package struct MissingIndex: Error, Sendable {
    package let definition: IndexDefinition
}
