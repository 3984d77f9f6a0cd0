import Synchronization

/// One field comparison after normalization (`in` / `array-contains-any` expanded into branches).
struct FieldFilter: Sendable, Hashable {
    var field: FieldPath
    var op: FilterOperator
    var value: DocumentValue
}

/// A query checked against Firestore's rules and put in a form the planner and listeners use.
struct NormalizedQuery: Sendable {
    var target: Query.Target
    /// Disjunctive normal form: the query matches when every filter of some branch matches.
    var branches: [[FieldFilter]]
    /// The effective order: explicit order-by (or the inequality field), then `__name__`.
    var orders: [QueryOrder]
    var limit: Int?
    /// limit(toLast:): `orders` and cursors are already reversed; reverse the results at the end.
    var reversed: Bool
    var start: (values: [DocumentValue], inclusive: Bool)?
    var end: (values: [DocumentValue], inclusive: Bool)?
    var mask: [FieldPath]?

    var hasCursors: Bool { start != nil || end != nil }

    /// The collection path of a document, when it belongs to the target.
    func contains(_ path: DocumentPath) -> Bool {
        switch target {
        case .collection(let collection): path.collection == collection
        case .group(let id): path.collection.collectionID.hasSameBytes(as: id)
        }
    }

    /// Whether a document (with its data) matches filters, order-by existence and cursors.
    func matches(_ path: DocumentPath, _ data: DocumentData) -> Bool {
        guard contains(path) else { return false }
        for order in orders where order.field != FieldPath.documentID {
            if data.value(at: order.field) == nil { return false }
        }
        guard branches.contains(where: { branch in branch.allSatisfy { QueryRunner.matches($0, path, data) } }) else {
            return false
        }
        if let start {
            let c = compare(path, data, to: start.values)
            if c < 0 || (c == 0 && !start.inclusive) { return false }
        }
        if let end {
            let c = compare(path, data, to: end.values)
            if c > 0 || (c == 0 && !end.inclusive) { return false }
        }
        return true
    }

    /// The document's position relative to a cursor, in query order.
    func compare(_ path: DocumentPath, _ data: DocumentData, to values: [DocumentValue]) -> Int {
        for (order, value) in zip(orders, values) {
            let own = QueryRunner.fieldValue(order.field, path, data) ?? .null
            var c = DocumentValue.compare(own, value)
            if order.descending { c = -c }
            if c != 0 { return c }
        }
        return 0
    }

    /// Query order between two documents.
    func areInOrder(_ a: (DocumentPath, DocumentData), _ b: (DocumentPath, DocumentData)) -> Bool {
        for order in orders {
            let x = QueryRunner.fieldValue(order.field, a.0, a.1) ?? .null
            let y = QueryRunner.fieldValue(order.field, b.0, b.1) ?? .null
            var c = DocumentValue.compare(x, y)
            if order.descending { c = -c }
            if c != 0 { return c < 0 }
        }
        return false
    }
}

/// A document read by a query.
struct Candidate: Sendable {
    var path: DocumentPath
    var stored: StoredDocument
    var data: DocumentData

    var snapshot: DocumentSnapshot { DocumentSnapshot(stored: stored, path: path, data: data) }
}

/// One index range to scan: lower bound inclusive, upper bound exclusive (in key order).
struct ScanRange: Sendable {
    var index: String
    var lower: [UInt8]?
    var upper: [UInt8]?
    var reverse: Bool
    /// Hit keys to skip (`!=` / `not-in` on a single-field index).
    var excludedKeys: Set<[UInt8]> = []
    var detail: String
    var empty = false
    /// The index's keys are bounded (``IndexKey/bounded(_:)``): hits of one prefix group may come out of value order,
    /// so an ordered read re-sorts each group by value (reading a group to its end before stopping at a limit).
    var prefixGroups = false
}

/// How one branch reads its candidates.
enum Access: Sendable {
    case empty
    case lookup([DocumentPath])
    case collectionScan(descending: Bool)
    case scan(ScanRange)
    case intersect([ScanRange], descending: Bool)
}

struct BranchPlan: Sendable {
    var access: Access
    var filters: [FieldFilter]
    /// Candidates come out in query order.
    var ordered: Bool
    /// Index hits alone decide membership (no document needed to count).
    var hitExact: Bool
}

/// Work counters of one query run (used by one task at a time).
final class QueryStats {
    var indexEntriesScanned = 0
    var documentsRead = 0
    var documentsScanned = 0
}

/// Plans and runs queries over the engine.
struct QueryRunner: Sendable {
    let query: Query
    var store: DocumentStore { query.store }

    struct Result {
        var documents: [DocumentSnapshot]
        var plan: QueryPlan
        var sequence: Int64
        var stats: QueryStats
    }

    // MARK: Running

    func run() async throws -> Result {
        let normalized = try Self.normalize(query)
        let sequence = store.knownSequence.load(ordering: .relaxed)
        let plans = try await plan(normalized)
        let stats = QueryStats()
        let candidates = try await collect(normalized, plans, stats: stats)
        var documents = candidates.map(\.snapshot)
        if let mask = normalized.mask { documents = documents.map { $0.masked(to: mask) } }
        let plan = describe(normalized, plans, stats: stats, results: documents.count)
        return Result(documents: documents, plan: plan, sequence: sequence, stats: stats)
    }

    /// Reads the matching documents of every branch, merges, orders and limits them.
    func collect(_ normalized: NormalizedQuery, _ plans: [BranchPlan], stats: QueryStats) async throws
        -> [Candidate]
    {
        var merged: [Candidate] = []
        // Paths are one when their bytes are (Swift's strings are equal when canonically equivalent).
        var seen = ExactKeyDictionary<Bool>()
        let single = plans.count == 1
        for plan in plans {
            let need = plan.ordered ? normalized.limit : nil
            let found = try await execute(plan, normalized, need: need, stats: stats)
            for candidate in found where seen[candidate.path.string] == nil {
                seen[candidate.path.string] = true
                merged.append(candidate)
            }
        }
        if !(single && plans[0].ordered) {
            merged.sort { normalized.areInOrder(($0.path, $0.data), ($1.path, $1.data)) }
        }
        if let limit = normalized.limit, merged.count > limit { merged.removeLast(merged.count - limit) }
        if normalized.reversed { merged.reverse() }
        return merged
    }

    /// Counts matching documents, from index hits alone when possible.
    func count(_ normalized: NormalizedQuery, _ plans: [BranchPlan], stats: QueryStats) async throws -> Int {
        guard !normalized.hasCursors, plans.allSatisfy(\.hitExact) else {
            return try await collect(normalized, plans, stats: stats).count
        }
        var paths = ExactKeyDictionary<Bool>()
        for plan in plans {
            switch plan.access {
            case .empty: break
            case .scan(let range):
                try await scanHits(range, plan: plan, stats: stats) { hits in
                    for hit in hits { paths[hit.path] = true }
                    return true
                }
            case .intersect(let ranges, _):
                for path in try await intersection(ranges, plan: plan, stats: stats) { paths[path] = true }
            case .lookup, .collectionScan:
                for candidate in try await execute(plan, normalized, need: nil, stats: stats) {
                    paths[candidate.path.string] = true
                }
            }
        }
        if let limit = normalized.limit { return min(limit, paths.count) }
        return paths.count
    }

    /// Reads the candidates of one branch that match the query, at most `need` (all of them when `nil`).
    func execute(_ plan: BranchPlan, _ normalized: NormalizedQuery, need: Int?, stats: QueryStats)
        async throws -> [Candidate]
    {
        var out: [Candidate]
        switch plan.access {
        case .empty:
            return []
        case .lookup(let paths):
            out = try await lookUp(paths, normalized, stats: stats)
        case .collectionScan(let descending):
            out = try await scanCollection(descending: descending, plan, normalized, need: need, stats: stats)
        case .scan(let range):
            out = try await scanIndex(range, plan, normalized, need: need, stats: stats)
        case .intersect(let ranges, let descending):
            out = try await readIntersection(
                ranges, descending: descending, plan, normalized, need: need, stats: stats)
        }
        if let need, out.count > need { out.removeLast(out.count - need) }
        return out
    }

    /// Appends `stored` to `out` when it exists and matches the query; whether it did.
    @discardableResult
    private static func accept(
        _ stored: StoredDocument?, _ normalized: NormalizedQuery, into out: inout [Candidate]
    ) throws -> Bool {
        guard let stored, let path = try? DocumentPath(stored.path) else { return false }
        let data = try ValueCodec.decode(stored.body)
        guard normalized.matches(path, data) else { return false }
        out.append(Candidate(path: path, stored: stored, data: data))
        return true
    }

    /// The matching documents among those at `paths`, in order.
    private func lookUp(_ paths: [DocumentPath], _ normalized: NormalizedQuery, stats: QueryStats) async throws
        -> [Candidate]
    {
        let engine = store.engine
        var out: [Candidate] = []
        let documents = try await engine.documents(at: paths.map(\.string))
        stats.documentsRead += documents.compactMap { $0 }.count
        for document in documents { try Self.accept(document, normalized, into: &out) }
        return out
    }

    /// The matching documents of the target, page by page in path order (reversed when `descending`), until `need`
    /// of them or the upper bound of the `__name__` filters when ascending.
    private func scanCollection(
        descending: Bool, _ plan: BranchPlan, _ normalized: NormalizedQuery, need: Int?, stats: QueryStats
    ) async throws -> [Candidate] {
        let engine = store.engine
        var out: [Candidate] = []
        var after: String?
        let page = (need.map { max(32, $0 * 2) } ?? 1000)
        let nameFilters = plan.filters.filter { $0.field == FieldPath.documentID }
        let upperName = Self.upperNameBound(nameFilters)
        scanning: while true {
            let documents: [StoredDocument]
            switch normalized.target {
            case .collection(let path):
                documents = try await engine.documents(inCollection: path.string, after: after, limit: page)
            case .group(let id):
                documents = try await engine.documents(inCollectionGroup: id, after: after, limit: page)
            }
            stats.documentsRead += documents.count
            stats.documentsScanned += documents.count
            for document in documents {
                if !descending, let upperName, let path = try? DocumentPath(document.path), path > upperName {
                    break scanning
                }
                try Self.accept(document, normalized, into: &out)
                if !descending, let need, out.count >= need { break scanning }
            }
            after = documents.last?.path
            if documents.count < page { break }
        }
        if descending { out.reverse() }
        return out
    }

    /// The matching documents of the index range's hits, read in batches (with the scan when the engine can) until
    /// `need` of them, in index order (each prefix group re-sorted with bounded keys, see `ScanRange.prefixGroups`).
    private func scanIndex(
        _ range: ScanRange, _ plan: BranchPlan, _ normalized: NormalizedQuery, need: Int?, stats: QueryStats
    ) async throws -> [Candidate] {
        let engine = store.engine
        var out: [Candidate] = []
        // With bounded keys, the prefix group of each hit read and of each result (see `ScanRange.prefixGroups`).
        let regroup = range.prefixGroups && plan.ordered
        var pending: [String] = []
        var pendingGroups: [ArraySlice<UInt8>?] = []
        var outGroups: [ArraySlice<UInt8>?] = []
        let prefetched = PrefetchedDocuments()
        func drain(stats: QueryStats) async throws {
            guard !pending.isEmpty else { return }
            let documents = try await prefetched.documents(at: pending, engine: engine)
            stats.documentsRead += documents.compactMap { $0 }.count
            for (document, group) in zip(documents, pendingGroups)
            where try Self.accept(document, normalized, into: &out) {
                if regroup { outGroups.append(group) }
            }
            pending.removeAll(keepingCapacity: true)
            pendingGroups.removeAll(keepingCapacity: true)
        }
        // Once `need` results are in: the prefix group of the last one, which must be read to its end.
        var closing: ArraySlice<UInt8>?
        let pageHint = need.map { $0 + 8 }
        try await scanHits(range, plan: plan, pageHint: pageHint, stats: stats, prefetch: prefetched) { hits in
            for hit in hits {
                let group = regroup ? IndexKey.prefixGroup(hit.key) : nil
                if let closing, group != closing {
                    try await drain(stats: stats)
                    return false
                }
                pending.append(hit.path)
                pendingGroups.append(group)
                let remaining = need.map { $0 - out.count } ?? 256
                if pending.count >= max(1, remaining) {
                    try await drain(stats: stats)
                    if let need, out.count >= need {
                        guard let last = outGroups.last, let last else { return false }
                        closing = last
                    }
                }
            }
            return true
        }
        if out.count < (need ?? .max) || closing != nil { try await drain(stats: stats) }
        if regroup { Self.sortPrefixGroups(&out, groups: outGroups, normalized) }
        return out
    }

    /// The matching documents among the paths in every range, in document-name order (reversed when `descending`),
    /// read in batches until `need` of them.
    private func readIntersection(
        _ ranges: [ScanRange], descending: Bool, _ plan: BranchPlan, _ normalized: NormalizedQuery, need: Int?,
        stats: QueryStats
    ) async throws -> [Candidate] {
        let engine = store.engine
        var out: [Candidate] = []
        // Document-name order (segment by segment), which is not plain string order across collections.
        var parsed = try await intersection(ranges, plan: plan, stats: stats).compactMap { try? DocumentPath($0) }
        parsed.sort()
        if descending { parsed.reverse() }
        let paths = parsed.map(\.string)
        var index = 0
        while index < paths.count {
            let remaining = need.map { $0 - out.count } ?? 256
            let chunk = Array(paths[index..<min(paths.count, index + max(1, remaining))])
            index += chunk.count
            let documents = try await engine.documents(at: chunk)
            stats.documentsRead += documents.compactMap { $0 }.count
            for document in documents { try Self.accept(document, normalized, into: &out) }
            if let need, out.count >= need { break }
        }
        return out
    }

    /// Sorts each run of results from one prefix group (equal non-nil `groups`) into query order; the rest is in
    /// order already.
    static func sortPrefixGroups(
        _ out: inout [Candidate], groups: [ArraySlice<UInt8>?], _ normalized: NormalizedQuery
    ) {
        var start = 0
        while start < groups.count {
            var end = start + 1
            if let group = groups[start] {
                while end < groups.count, groups[end] == group { end += 1 }
                if end - start > 1 {
                    out[start..<end].sort { normalized.areInOrder(($0.path, $0.data), ($1.path, $1.data)) }
                }
            }
            start = end
        }
    }

    /// Paths in every range (hit-level filters applied).
    private func intersection(_ ranges: [ScanRange], plan: BranchPlan, stats: QueryStats) async throws
        -> [String]
    {
        var result: ExactKeyDictionary<Bool>?
        for range in ranges {
            var paths = ExactKeyDictionary<Bool>()
            try await scanHits(range, plan: plan, stats: stats) { hits in
                for hit in hits where result.map({ $0[hit.path] != nil }) ?? true { paths[hit.path] = true }
                return true
            }
            result = paths
            if paths.count == 0 { break }
        }
        return result?.keys ?? []
    }

    /// Scans a range page by page, passing the hits that pass hit-level filters to `body` until it returns false.
    private func scanHits(
        _ range: ScanRange, plan: BranchPlan, pageHint: Int? = nil, stats: QueryStats,
        prefetch: PrefetchedDocuments? = nil, _ body: ([IndexHit]) async throws -> Bool
    ) async throws {
        guard !range.empty else { return }
        let nameFilters = plan.filters.filter { $0.field == FieldPath.documentID }
        var lower = range.lower.map { IndexBound(key: $0, inclusive: true) }
        var upper = range.upper.map { IndexBound(key: $0, inclusive: false) }
        var pageSize = max(16, pageHint ?? 1000)
        var lastKey: [UInt8]?
        var pathsAtLastKey = ExactKeyDictionary<Bool>()
        while true {
            let scan = IndexScan(
                index: range.index, lower: lower, upper: upper, reverse: range.reverse, limit: pageSize)
            let hits: [IndexHit]
            if let prefetch, let scanned = try await store.engine.scanReadingDocuments(scan) {
                hits = scanned.hits
                prefetch.add(scanned)
            } else {
                hits = try await store.engine.scan(scan)
            }
            stats.indexEntriesScanned += hits.count
            var accepted: [IndexHit] = []
            var progressed = false
            for hit in hits {
                if let lastKey, hit.key == lastKey, pathsAtLastKey[hit.path] != nil { continue }
                progressed = true
                if hit.key == lastKey {
                    pathsAtLastKey[hit.path] = true
                } else {
                    lastKey = hit.key
                    pathsAtLastKey = ExactKeyDictionary()
                    pathsAtLastKey[hit.path] = true
                }
                if !range.excludedKeys.isEmpty, range.excludedKeys.contains(hit.key) { continue }
                if !nameFilters.isEmpty {
                    guard let path = try? DocumentPath(hit.path),
                        nameFilters.allSatisfy({ Self.matches($0, path, [:]) })
                    else { continue }
                }
                accepted.append(hit)
            }
            if !accepted.isEmpty, try await !body(accepted) { return }
            if hits.count < pageSize { return }
            guard let lastKey else { return }
            if range.reverse {
                upper = IndexBound(key: lastKey, inclusive: true)
            } else {
                lower = IndexBound(key: lastKey, inclusive: true)
            }
            if !progressed { pageSize *= 2 }
        }
    }

    /// The smallest upper bound of `__name__ <` / `<=` filters, in document-name order.
    private static func upperNameBound(_ filters: [FieldFilter]) -> DocumentPath? {
        var bound: DocumentPath?
        for filter in filters where filter.op == .less || filter.op == .lessOrEqual {
            guard case .reference(let text) = filter.value, let path = try? DocumentPath(text) else { continue }
            if let current = bound, current <= path { continue }
            bound = path
        }
        return bound
    }

    // MARK: Matching

    static func fieldValue(_ field: FieldPath, _ path: DocumentPath, _ data: DocumentData) -> DocumentValue? {
        if field == FieldPath.documentID { return .reference(path.string) }
        return data.value(at: field)
    }

    /// Firestore semantics of one comparison.
    static func matches(_ filter: FieldFilter, _ path: DocumentPath, _ data: DocumentData) -> Bool {
        guard let value = fieldValue(filter.field, path, data) else { return false }
        let target = filter.value
        switch filter.op {
        case .equal: return ValueSemantics.equal(value, target)
        // `!=` and `not-in` match a field that exists and is not null (Firestore: "exists with a value other than
        // false or null").
        case .notEqual: return value != .null && !ValueSemantics.equal(value, target)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard value.typeOrder == target.typeOrder, !ValueSemantics.isNaN(value) else { return false }
            let c = DocumentValue.compare(value, target)
            switch filter.op {
            case .less: return c < 0
            case .lessOrEqual: return c <= 0
            case .greater: return c > 0
            default: return c >= 0
            }
        case .in:
            guard case .array(let list) = target else { return false }
            return list.contains { ValueSemantics.equal(value, $0) }
        case .notIn:
            guard case .array(let list) = target else { return false }
            if list.contains(.null) || value == .null { return false }
            return !list.contains { ValueSemantics.equal(value, $0) }
        case .arrayContains:
            guard case .array(let elements) = value else { return false }
            return elements.contains { ValueSemantics.equal($0, target) }
        case .arrayContainsAny:
            guard case .array(let elements) = value, case .array(let list) = target else { return false }
            return elements.contains { element in list.contains { ValueSemantics.equal(element, $0) } }
        }
    }
}

/// Documents an engine read together with a scan's hits (``DocumentEngine/scanReadingDocuments(_:)``), for the rest
/// of one query's run: its reads of those paths then cost no second call. Used by one task at a time.
final class PrefetchedDocuments: @unchecked Sendable {
    private var byPath = ExactKeyDictionary<StoredDocument?>()

    func add(_ scanned: ScannedDocuments) {
        for (hit, document) in zip(scanned.hits, scanned.documents) { byPath[hit.path] = .some(document) }
    }

    /// The documents at `paths`: from the scans when each was read with them, else from `engine`.
    func documents(at paths: [String], engine: any DocumentEngine) async throws -> [StoredDocument?] {
        var found: [StoredDocument?] = []
        found.reserveCapacity(paths.count)
        for path in paths {
            guard case .some(let document) = byPath[path] else { return try await engine.documents(at: paths) }
            found.append(document)
        }
        return found
    }
}
