/// What makes two one-shot queries identical for coalescing (``QueryCoalescing``): the normalized query — target,
/// filter branches, effective orders, limit and direction, cursor values, field mask — and the rate-limit behaviour of
/// the call (a call that fails fast never waits behind one that waits for a token, nor the reverse).
struct QueryKey: Sendable, Hashable {
    struct Cursor: Sendable, Hashable {
        var values: [DocumentValue]
        var inclusive: Bool
    }

    var target: Query.Target
    var branches: [[FieldFilter]]
    var orders: [QueryOrder]
    var limit: Int?
    var reversed: Bool
    var start: Cursor?
    var end: Cursor?
    var mask: [FieldPath]?
    var behavior: QueryRateLimit.Behavior

    init(_ query: NormalizedQuery, behavior: QueryRateLimit.Behavior) {
        target = query.target
        branches = query.branches
        orders = query.orders
        limit = query.limit
        reversed = query.reversed
        start = query.start.map { Cursor(values: $0.values, inclusive: $0.inclusive) }
        end = query.end.map { Cursor(values: $0.values, inclusive: $0.inclusive) }
        mask = query.mask
        self.behavior = behavior
    }
}
