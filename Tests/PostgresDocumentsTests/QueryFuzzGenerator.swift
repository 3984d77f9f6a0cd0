import Documents
import SuiteTestSupport

// The query differential fuzzer's generator: random document sets and random queries, seeded (SplitMix64), so a
// failure replays from its seed. Values are biased toward Firestore's hard cases: mixed types in one field, NaN,
// ±0, ±infinity, integers near Int64's limits and beyond 2^53, strings whose UTF-8 and UTF-16 orders differ,
// prefix-related strings and ids, keys longer than the indexes' 57-byte bounded prefix.

/// One write of a generated document set: a replacing set, or a delete (`data == nil`).
struct FuzzWrite: Sendable {
    var path: String
    var data: DocumentData?
}

/// A generated document set: commits applied in order, and composite indexes declared before the first commit.
struct FuzzDocumentSet: Sendable {
    var commits: [[FuzzWrite]]
    var indexes: [IndexDefinition]

    /// The documents after every commit, by path.
    var finalDocuments: [String: DocumentData] {
        var state: [String: DocumentData] = [:]
        for commit in commits {
            for write in commit { state[write.path] = write.data }
        }
        return state
    }

    /// The set without any write of `path` (for shrinking).
    func dropping(_ path: String) -> FuzzDocumentSet {
        var copy = self
        copy.commits = commits.map { $0.filter { $0.path != path } }.filter { !$0.isEmpty }
        return copy
    }

    /// Every path written.
    var paths: [String] {
        var seen: [String] = []
        for commit in commits { for write in commit where !seen.contains(write.path) { seen.append(write.path) } }
        return seen
    }
}

/// A filter of a generated query.
indirect enum FuzzFilter: Sendable {
    case field(String, FilterOperator, DocumentValue)
    case and([FuzzFilter])
    case or([FuzzFilter])

    var filter: Filter {
        switch self {
        case .field(let field, let op, let value): .whereField(field, op, value)
        case .and(let children): .and(children.map(\.filter))
        case .or(let children): .or(children.map(\.filter))
        }
    }
}

/// A cursor of a generated query: values of the order-by fields, or an existing (or missing) document.
struct FuzzCursor: Sendable {
    enum Source: Sendable {
        case values([DocumentValue])
        case document(String)
    }
    var source: Source
    var inclusive: Bool
}

/// An aggregation a generated query asks instead of documents.
enum FuzzAggregate: Sendable {
    case count
    case sum(String)
    case average(String)
}

/// A generated query, applicable to any store and printable as Swift.
struct FuzzQuery: Sendable {
    enum Target: Sendable {
        case collection(String)
        case group(String)
    }
    var target: Target
    var filters: [FuzzFilter] = []
    var orders: [(field: String, descending: Bool)] = []
    var limit: Int?
    var limitToLast = false
    var start: FuzzCursor?
    var end: FuzzCursor?
    var aggregate: FuzzAggregate?
}

/// Draws document sets and queries from a seed.
struct QueryFuzzGenerator {
    var rng: SplitMix64

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    // MARK: Pools

    static let long = String(repeating: "x", count: 60)
    static let strings: [String] = [
        "", "a", "a\u{0}", "ab", "aa", "b", "B", "é", "e\u{301}", "\u{FF61}", "\u{1F600}", "a/b", "z",
        long, long + "a", long + "b", long + "a" + long,
    ]
    static let ints: [Int64] = [
        0, 1, -1, 2, 42, -42, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1, 1 << 53, (1 << 53) + 1,
        (1 << 53) - 1, -(1 << 53) - 1,
    ]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 0.5, -1.5, 2.5, .nan, .infinity, -.infinity, 9_007_199_254_740_992.0,
        9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 1e300, -1e-300, 42,
    ]
    static let references = ["c/a", "c/a/s/b", "c/a!", "c!/a", "d/a", "c/ab", "p/p1/c/a"]
    static let ids = [
        "a", "a0", "a!", "ab", "b", "B", "é", "e\u{301}", "z", "10", "9", "0", "00", "\u{1F600}", "\u{FF61}", "x", "~",
    ]
    static let collections = ["c", "c", "c", "c", "c", "c", "p/p1/c", "p/p1!/c", "p/p10/c", "q/p1/c"]
    /// The fields queries use; `m.x` is inside the map `m`.
    static let fields = ["a", "b", "c", "m", "m.x", "arr", "t", "__name__"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ list: [T]) -> T { list[int(0...(list.count - 1))] }

    mutating func number() -> DocumentValue {
        switch int(0...3) {
        case 0: .int(pick(Self.ints))
        case 1: .double(pick(Self.doubles))
        case 2: .int(Int64(int(-3...3)))
        default: .double(Double(int(-6...6)) / 2)
        }
    }

    mutating func timestamp() -> DocumentValue {
        if chance(15) {
            return .timestamp(
                Timestamp(microseconds: pick([DocumentLimits.earliestTimestamp, DocumentLimits.latestTimestamp])))
        }
        return .timestamp(Timestamp(microseconds: Int64(int(-3...3)) * 1_000_003))
    }

    mutating func scalar() -> DocumentValue {
        switch int(0...9) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2, 3: return number()
        case 4: return timestamp()
        case 5, 6: return .string(pick(Self.strings))
        case 7: return .bytes(pick([[], [0], [0, 0], [1], [0xFF], Array(Self.long.utf8) + [1]]))
        case 8: return .reference(pick(Self.references))
        default:
            return .geoPoint(GeoPoint(latitude: pick([-90, -1, 0, 0.5, 90]), longitude: pick([-180, 0, 1, 180])))
        }
    }

    /// Any value, nested up to `depth` levels.
    mutating func value(depth: Int = 0) -> DocumentValue {
        let roll = int(0...11)
        if roll < 8 || depth >= 2 { return scalar() }
        switch roll {
        case 8, 9: return .array((0..<int(0...3)).map { _ in value(depth: depth + 1) })
        case 10:
            if chance(30) {
                return .map(["__type__": "__vector__", "value": .array((0..<int(0...2)).map { _ in number() })])
            }
            fallthrough
        default:
            var map: [String: DocumentValue] = [:]
            for _ in 0..<int(0...2) { map[pick(["x", "y", "X", "é", Self.long])] = value(depth: depth + 1) }
            return map.isEmpty && chance(50) ? .map([:]) : .map(map)
        }
    }

    /// A value for `field`, from the field's usual types most of the time.
    mutating func value(for field: String) -> DocumentValue {
        if chance(15) { return value() }
        switch field {
        case "a": return chance(90) ? number() : pick([.null, .string("1"), .bool(true)])
        case "c": return chance(85) ? .string(pick(Self.strings)) : scalar()
        case "m.x", "b": return value()
        case "m":
            return .map(chance(70) ? ["x": value(for: "m.x")] : ["x": value(for: "m.x"), "y": scalar()])
        case "arr": return .array((0..<int(0...3)).map { _ in chance(70) ? number() : scalar() })
        case "t": return chance(60) ? timestamp() : scalar()
        case "__name__": return .reference(pick(Self.collections) + "/" + pick(Self.ids))
        default: return value()
        }
    }

    // MARK: Documents

    mutating func document() -> DocumentData {
        var data: DocumentData = [:]
        for field in ["a", "b", "c", "arr", "t"] where chance(75) { data[field] = value(for: field) }
        if chance(70) { data["m"] = value(for: "m") }
        return data
    }

    /// Up to `maximum` documents over a few collections, written in a few commits with overwrites and deletes.
    mutating func documentSet(maximum: Int = 40) -> FuzzDocumentSet {
        var paths: [String] = []
        for _ in 0..<int(8...maximum) {
            let path = pick(Self.collections) + "/" + pick(Self.ids)
            if !paths.contains(path) { paths.append(path) }
        }
        var commits: [[FuzzWrite]] = [paths.map { FuzzWrite(path: $0, data: document()) }]
        for _ in 0..<int(0...2) {
            var commit: [FuzzWrite] = []
            for path in paths where chance(25) {
                commit.append(FuzzWrite(path: path, data: chance(25) ? nil : document()))
            }
            if !commit.isEmpty { commits.append(commit) }
        }
        var indexes: [IndexDefinition] = []
        for _ in 0..<int(0...2) {
            let first = FuzzFieldPick.field(pick(["a", "b", "c", "t", "m.x"]), descending: chance(30))
            let second = FuzzFieldPick.field(pick(["a", "c", "t", "m"]), descending: chance(50))
            guard first.fieldPath != second.fieldPath else { continue }
            indexes.append(
                IndexDefinition(
                    collectionID: "c", scope: chance(50) ? .collection : .collectionGroup, fields: [first, second]))
        }
        return FuzzDocumentSet(commits: commits, indexes: indexes)
    }

    // MARK: Queries

    /// Whether a filter was drawn with `array-contains` or `array-contains-any` (a query takes one at most).
    var drewArrayFilter = false

    mutating func comparison(_ field: String? = nil) -> FuzzFilter {
        let field = field ?? pick(Self.fields)
        let operators: [FilterOperator] = [
            .equal, .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in, .notIn, .arrayContains,
            .arrayContainsAny,
        ]
        var op = pick(operators)
        if field == "arr", chance(50) { op = pick([.arrayContains, .arrayContainsAny]) }
        if op == .arrayContains || op == .arrayContainsAny {
            if drewArrayFilter, chance(90) { op = pick([.equal, .in, .notEqual]) }
            drewArrayFilter = true
        }
        let element = field == "arr" ? "a" : field
        switch op {
        case .in, .notIn, .arrayContainsAny:
            var list = (0..<int(1...4)).map { _ in value(for: element) }
            if chance(15) { list.append(pick([.null, .double(.nan), .int(1), .double(1)])) }
            return .field(field, op, .array(list))
        case .arrayContains:
            return .field(field, op, value(for: element))
        default:
            if chance(10) { return .field(field, op, pick([.null, .double(.nan), .double(-0.0)])) }
            return .field(field, op, value(for: field))
        }
    }

    mutating func filters() -> [FuzzFilter] {
        var filters: [FuzzFilter] = (0..<int(0...2)).map { _ in comparison() }
        if chance(15) {
            let branches: [FuzzFilter] = (0..<int(1...3)).map { _ in
                chance(50) ? comparison() : .and((0..<int(1...2)).map { _ in comparison() })
            }
            filters.append(.or(branches))
        }
        return filters
    }

    /// The fields of range, `!=` and `not-in` comparisons (top level and inside `and`/`or`).
    static func inequalityFields(_ filters: [FuzzFilter]) -> [String] {
        var fields: [String] = []
        func visit(_ filter: FuzzFilter) {
            switch filter {
            case .field(let field, let op, _):
                let inequality: [FilterOperator] = [.less, .lessOrEqual, .greater, .greaterOrEqual, .notEqual, .notIn]
                if inequality.contains(op), !fields.contains(field) { fields.append(field) }
            case .and(let children), .or(let children):
                children.forEach(visit)
            }
        }
        filters.forEach(visit)
        return fields
    }

    mutating func query(documents: FuzzDocumentSet) -> FuzzQuery {
        let target: FuzzQuery.Target =
            switch int(0...9) {
            case 0, 1: .group("c")
            case 2: .collection("p/p1/c")
            default: .collection("c")
            }
        var query = FuzzQuery(target: target)
        drewArrayFilter = false
        query.filters = filters()
        let inequalities = Self.inequalityFields(query.filters)
        var orderFields: [String] = []
        if let first = inequalities.first, chance(85) { orderFields.append(first) }
        for _ in 0..<int(0...2) {
            let field = pick(Self.fields)
            if !orderFields.contains(field) { orderFields.append(field) }
        }
        if let name = orderFields.firstIndex(of: "__name__"), chance(80) {
            orderFields.remove(at: name)
            orderFields.append("__name__")
        }
        let descending = chance(40)
        query.orders = orderFields.map { (field: $0, descending: chance(80) ? descending : !descending) }
        // The document name in another direction than the field before it is refused (a known limitation).
        if query.orders.count > 1, query.orders.last?.field == "__name__", chance(90) {
            query.orders[query.orders.count - 1].descending = query.orders[query.orders.count - 2].descending
        }
        if chance(45) {
            query.limit = int(1...8)
            query.limitToLast = !query.orders.isEmpty && chance(30)
        }
        if chance(30) { query.start = cursor(query, documents) }
        if chance(25) { query.end = cursor(query, documents) }
        switch int(0...19) {
        case 0, 1, 2: query.aggregate = .count
        case 3: query.aggregate = .sum(pick(["a", "arr", "b"]))
        case 4: query.aggregate = .average(pick(["a", "b"]))
        default: break
        }
        return query
    }

    mutating func cursor(_ query: FuzzQuery, _ documents: FuzzDocumentSet) -> FuzzCursor {
        let inclusive = chance(50)
        if chance(25) {
            let paths = documents.paths
            let path = paths.isEmpty || chance(10) ? "c/missing" : pick(paths)
            return FuzzCursor(source: .document(path), inclusive: inclusive)
        }
        var fields = query.orders.map(\.field)
        if fields.isEmpty { fields = ["__name__"] }
        let count = int(1...fields.count)
        let values = fields.prefix(count).map { field -> DocumentValue in
            if field == "__name__", case .collection = query.target, chance(50) { return .string(pick(Self.ids)) }
            return value(for: field)
        }
        return FuzzCursor(source: .values(values), inclusive: inclusive)
    }
}

/// Index fields for generated declarations.
enum FuzzFieldPick {
    static func field(_ dotted: String, descending: Bool) -> IndexDefinition.Field {
        // The pools hold valid dotted paths only.
        IndexDefinition.Field(
            (try? FieldPath(dotted)) ?? FieldPath.documentID, order: descending ? .descending : .ascending)
    }
}
