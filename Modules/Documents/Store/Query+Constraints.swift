/// What a query fixes, as a server's rules judge a list: the values each field may have, its limit and order.
extension Query {
    /// Field path (dotted) → the values the query lets it have: one for `==`, each value of an `in`. Only filters
    /// that every result must satisfy count (those under an `or` do not).
    package var fixedValues: [String: [DocumentValue]] {
        var fixed: [String: [DocumentValue]] = [:]
        func collect(_ filter: Filter) {
            switch filter.node {
            case .field(let field, .equal, let value):
                fixed[field.canonicalString] = [value]
            case .field(let field, .in, .array(let values)):
                if fixed[field.canonicalString] == nil { fixed[field.canonicalString] = values }
            case .and(let inner):
                inner.forEach(collect)
            default:
                break
            }
        }
        filters.forEach(collect)
        return fixed
    }

    /// The limit, nil when there is none.
    package var limitCount: Int? { limitValue }

    /// The fields ordered by, in order.
    package var orderFields: [String] { orders.map(\.field.canonicalString) }
}
