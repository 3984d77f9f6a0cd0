import Synchronization

/// One aggregation: count, sum or average of a field.
public struct AggregateField: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case count
        case sum(FieldPath)
        case average(FieldPath)
        case invalid(String)
    }

    let kind: Kind
    /// The name of the result (`count`, `sum(points)`, `average(points)`).
    public let alias: String

    /// The number of matching documents.
    public static let count = AggregateField(kind: .count, alias: "count")

    /// The sum of a numeric field (non-numbers ignored).
    public static func sum(_ field: String) -> AggregateField {
        guard let path = try? FieldPath(field) else {
            return AggregateField(kind: .invalid(field), alias: "sum(\(field))")
        }
        return AggregateField(kind: .sum(path), alias: "sum(\(path.canonicalString))")
    }

    /// The average of a numeric field (non-numbers ignored; null when none).
    public static func average(_ field: String) -> AggregateField {
        guard let path = try? FieldPath(field) else {
            return AggregateField(kind: .invalid(field), alias: "average(\(field))")
        }
        return AggregateField(kind: .average(path), alias: "average(\(path.canonicalString))")
    }
}

/// The result of an aggregation query.
public struct AggregateSnapshot: Sendable, Hashable {
    /// Each aggregation's result, in the order asked: count as `.int`, sum as `.int` or `.double`, average as
    /// `.double` or `.null`.
    public var values: [(alias: String, value: DocumentValue)] { zip(aliases, results).map { ($0, $1) } }
    let aliases: [String]
    let results: [DocumentValue]
    /// A change-log sequence the result reflects at least: the last commit this store made or a listener saw.
    public var sequence: Int64

    /// The result named `alias` (`count`, `sum(points)`, `average(points)`).
    public func get(_ alias: String) -> DocumentValue? {
        aliases.firstIndex(of: alias).map { results[$0] }
    }

    /// The count, when it was asked for.
    public var count: Int? {
        if case .int(let n)? = get("count") { return Int(n) }
        return nil
    }
}

/// Count / sum / average over a query; costs 1 read per 1,000 index entries scanned (at least 1), like Firestore.
/// Unlike Firestore's, it can be listened to (``snapshots()``) and stays current as writes land.
public struct AggregateQuery: Sendable {
    /// The query aggregated.
    public let query: Query
    /// The aggregations.
    public let fields: [AggregateField]

    /// Runs the aggregation. It takes a token of the store's query-rate limit (``DocumentStore/Options/queryRateLimit``).
    public func get() async throws -> AggregateSnapshot {
        try await query.store.admitQuery(nil)
        let (snapshot, entries) = try await compute()
        query.store.recordCost(
            kind: "aggregation", collection: query.costCollection, CostCounts(reads: Self.readCost(entries: entries)))
        return snapshot
    }

    static func readCost(entries: Int) -> Int64 { Int64(max(1, (entries + 999) / 1000)) }

    /// Runs the aggregation; returns it with the number of index entries (or documents) scanned.
    func compute() async throws -> (AggregateSnapshot, Int) {
        for field in fields {
            if case .invalid(let text) = field.kind {
                throw DocumentsError(.invalidField, "invalid field path '\(text)' in an aggregation")
            }
        }
        let runner = QueryRunner(query: query)
        let normalized = try QueryRunner.normalize(query)
        let sequence = query.store.knownSequence.load(ordering: .relaxed)
        let plans = try await runner.plan(normalized)
        let stats = QueryStats()
        let needsDocuments = fields.contains { if case .count = $0.kind { false } else { true } }
        var results: [DocumentValue] = []
        if needsDocuments {
            let candidates = try await runner.collect(normalized, plans, stats: stats)
            for field in fields {
                switch field.kind {
                case .count, .invalid: results.append(.int(Int64(candidates.count)))
                case .sum(let path): results.append(Self.sum(candidates.compactMap { $0.data.value(at: path) }))
                case .average(let path): results.append(Self.average(candidates.compactMap { $0.data.value(at: path) }))
                }
            }
        } else {
            let count = try await runner.count(normalized, plans, stats: stats)
            results = fields.map { _ in .int(Int64(count)) }
        }
        let entries = stats.indexEntriesScanned + stats.documentsScanned
        return (AggregateSnapshot(aliases: fields.map(\.alias), results: results, sequence: sequence), entries)
    }

    static func sum(_ values: [DocumentValue]) -> DocumentValue {
        var integer: Int64 = 0
        var double = 0.0
        var useDouble = false
        for value in values {
            switch value {
            case .int(let n):
                if !useDouble {
                    let (result, overflow) = integer.addingReportingOverflow(n)
                    if overflow {
                        useDouble = true
                        double = Double(integer) + Double(n)
                    } else {
                        integer = result
                    }
                } else {
                    double += Double(n)
                }
            case .double(let d):
                if !useDouble {
                    useDouble = true
                    double = Double(integer)
                }
                double += d
            default: break
            }
        }
        return useDouble ? .double(double) : .int(integer)
    }

    static func average(_ values: [DocumentValue]) -> DocumentValue {
        var total = 0.0
        var count = 0
        for value in values {
            switch value {
            case .int(let n):
                total += Double(n)
                count += 1
            case .double(let d):
                total += d
                count += 1
            default: break
            }
        }
        return count == 0 ? .null : .double(total / Double(count))
    }
}

extension AggregateSnapshot {
    public static func == (a: AggregateSnapshot, b: AggregateSnapshot) -> Bool {
        a.aliases == b.aliases && a.results == b.results && a.sequence == b.sequence
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(aliases)
        hasher.combine(results)
    }
}
