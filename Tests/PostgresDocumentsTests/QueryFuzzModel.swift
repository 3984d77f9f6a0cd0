import Documents

// The query differential fuzzer's judge: Firestore's query semantics written out plainly over a dictionary of
// documents, independently of the Documents module's planner, index keys and comparison code. Sources: Firestore's
// "Ordering of data types" and "Query limitations" pages, and the Firebase SDKs' local query matching
// (`FieldFilter.matches`, `NotInFilter`, `valueCompare`).
//
// - Type order: null < boolean < number < timestamp < string < bytes < reference < geo point < array < vector < map.
// - Numbers: integers and doubles on one line, compared exactly; NaN before every other number and equal to NaN;
//   -0.0 equal to 0.
// - Strings and bytes: UTF-8 byte order; references segment by segment; maps by sorted keys then values.
// - `==`, `in`: same type order and equal. `<`…`>=`: same type order (NaN matches no range). `!=`, `not-in`: the field
//   exists and is not null; `not-in` with a null in its list matches nothing. `array-contains(-any)`: an array
//   element equal to (one of) the value(s).
// - Order: explicit orders, then inequality fields not ordered explicitly (by name), then the document name in the
//   direction of the last order; a document missing an ordered field is not a result.
enum QueryFuzzModel {
    /// What the model expects: documents (path and data) in order, or aggregation values; `nil` when the query cannot
    /// be judged (a cursor document that does not exist or lacks an ordered field: the engines must refuse it).
    enum Expected {
        case documents([(path: String, data: DocumentData)])
        case aggregate(DocumentValue)
    }

    // MARK: Values

    static func rank(_ value: DocumentValue) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .int, .double: 2
        case .timestamp: 3
        case .string: 4
        case .bytes: 5
        case .reference: 6
        case .geoPoint: 7
        case .array: 8
        case .map(let map): vector(map) != nil ? 9 : 10
        }
    }

    static func vector(_ map: [String: DocumentValue]) -> [DocumentValue]? {
        guard map.count == 2, map["__type__"] == .string("__vector__"), case .array(let list)? = map["value"] else {
            return nil
        }
        for element in list {
            switch element {
            case .int, .double: continue
            default: return nil
            }
        }
        return list
    }

    static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a > b ? 1 : 0) }

    static func bytes(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Int {
        let (x, y) = (Array(a), Array(b))
        for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
        return sign(x.count, y.count)
    }

    /// An integer against a double, exactly; NaN first.
    static func number(_ i: Int64, _ d: Double) -> Int {
        if d.isNaN { return 1 }
        let rounded = Double(i)
        if rounded != d { return rounded < d ? -1 : 1 }
        // Equal after rounding `i`: `d` is integral; 2^63 is above every Int64.
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        return sign(i, Int64(d))
    }

    static func double(_ a: Double, _ b: Double) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN ? (b.isNaN ? 0 : -1) : 1 }
        return sign(a, b)
    }

    static func compare(_ a: DocumentValue, _ b: DocumentValue) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return sign(ra, rb) }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return sign(x ? 1 : 0, y ? 1 : 0)
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.int(let x), .double(let y)): return number(x, y)
        case (.double(let x), .int(let y)): return -number(y, x)
        case (.double(let x), .double(let y)): return double(x, y)
        case (.timestamp(let x), .timestamp(let y)): return sign(x.microseconds, y.microseconds)
        case (.string(let x), .string(let y)): return bytes(x.utf8, y.utf8)
        case (.bytes(let x), .bytes(let y)): return bytes(x, y)
        case (.reference(let x), .reference(let y)):
            let (s, t) = (x.split(separator: "/"), y.split(separator: "/"))
            for (p, q) in zip(s, t) {
                let c = bytes(p.utf8, q.utf8)
                if c != 0 { return c }
            }
            return sign(s.count, t.count)
        case (.geoPoint(let x), .geoPoint(let y)):
            let c = double(x.latitude, y.latitude)
            return c != 0 ? c : double(x.longitude, y.longitude)
        case (.array(let x), .array(let y)):
            return sequence(x, y)
        case (.map(let x), .map(let y)):
            if let u = vector(x), let v = vector(y) {
                return u.count != v.count ? sign(u.count, v.count) : sequence(u, v)
            }
            let (kx, ky) = (sortedKeys(x), sortedKeys(y))
            for (p, q) in zip(kx, ky) {
                let c = bytes(p.utf8, q.utf8)
                if c != 0 { return c }
                let v = compare(x[p] ?? .null, y[q] ?? .null)
                if v != 0 { return v }
            }
            return sign(kx.count, ky.count)
        default:
            return 0
        }
    }

    static func sequence(_ x: [DocumentValue], _ y: [DocumentValue]) -> Int {
        for (u, v) in zip(x, y) {
            let c = compare(u, v)
            if c != 0 { return c }
        }
        return sign(x.count, y.count)
    }

    static func sortedKeys(_ map: [String: DocumentValue]) -> [String] {
        map.keys.sorted { bytes($0.utf8, $1.utf8) < 0 }
    }

    static func equal(_ a: DocumentValue, _ b: DocumentValue) -> Bool { rank(a) == rank(b) && compare(a, b) == 0 }

    static func isNaN(_ value: DocumentValue) -> Bool {
        if case .double(let d) = value { return d.isNaN }
        return false
    }

    // MARK: Documents

    static func value(_ field: String, _ path: String, _ data: DocumentData) -> DocumentValue? {
        if field == "__name__" { return .reference(path) }
        var current: DocumentValue = .map(data)
        for segment in field.split(separator: ".") {
            guard case .map(let map) = current, let next = map[String(segment)] else { return nil }
            current = next
        }
        return current
    }

    static func matches(_ filter: FuzzFilter, _ path: String, _ data: DocumentData, _ target: FuzzQuery.Target) -> Bool
    {
        switch filter {
        case .and(let children): return children.allSatisfy { matches($0, path, data, target) }
        case .or(let children): return children.contains { matches($0, path, data, target) }
        case .field(let field, let op, var operand):
            guard let value = Self.value(field, path, data) else { return false }
            if field == "__name__" { operand = nameOperand(operand, target) }
            switch op {
            case .equal: return equal(value, operand)
            case .notEqual: return value != .null && !equal(value, operand)
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                guard rank(value) == rank(operand), !isNaN(value) else { return false }
                let c = compare(value, operand)
                switch op {
                case .less: return c < 0
                case .lessOrEqual: return c <= 0
                case .greater: return c > 0
                default: return c >= 0
                }
            case .in:
                guard case .array(let list) = operand else { return false }
                return list.contains { equal(value, field == "__name__" ? nameOperand($0, target) : $0) }
            case .notIn:
                guard case .array(let list) = operand, !list.contains(.null), value != .null else { return false }
                return !list.contains { equal(value, field == "__name__" ? nameOperand($0, target) : $0) }
            case .arrayContains:
                guard case .array(let elements) = value else { return false }
                return elements.contains { equal($0, operand) }
            case .arrayContainsAny:
                guard case .array(let elements) = value, case .array(let list) = operand else { return false }
                return elements.contains { element in list.contains { equal(element, $0) } }
            }
        }
    }

    /// A document-id operand as a reference: a bare id is a document of the queried collection.
    static func nameOperand(_ operand: DocumentValue, _ target: FuzzQuery.Target) -> DocumentValue {
        guard case .string(let id) = operand else { return operand }
        if case .collection(let collection) = target, !id.contains("/") { return .reference(collection + "/" + id) }
        return .reference(id)
    }

    static func inTarget(_ path: String, _ target: FuzzQuery.Target) -> Bool {
        var segments = path.split(separator: "/").map(String.init)
        segments.removeLast()
        switch target {
        case .collection(let collection): return segments.joined(separator: "/") == collection
        case .group(let id): return segments.last == id
        }
    }

    /// The effective order: explicit, then unordered inequality fields by name, then the document name.
    static func orders(_ query: FuzzQuery) -> [(field: String, descending: Bool)] {
        var orders = query.orders
        let direction = orders.last?.descending ?? false
        let implicit = QueryFuzzGenerator.inequalityFields(query.filters)
            .filter { field in field != "__name__" && !orders.contains { $0.field == field } }
            .sorted { bytes($0.utf8, $1.utf8) < 0 }
        orders += implicit.map { (field: $0, descending: direction) }
        if !orders.contains(where: { $0.field == "__name__" }) {
            orders.append((field: "__name__", descending: orders.last?.descending ?? false))
        }
        return orders
    }

    // MARK: Running

    static func run(_ query: FuzzQuery, _ documents: [String: DocumentData]) -> Expected? {
        let orders = orders(query)
        var rows = documents.filter { path, data in
            inTarget(path, query.target)
                && orders.allSatisfy { value($0.field, path, data) != nil }
                && query.filters.allSatisfy { matches($0, path, data, query.target) }
        }.map { (path: $0.key, data: $0.value) }
        func order(_ a: (path: String, data: DocumentData), _ b: (path: String, data: DocumentData)) -> Int {
            for o in orders {
                let c = compare(value(o.field, a.path, a.data) ?? .null, value(o.field, b.path, b.data) ?? .null)
                if c != 0 { return o.descending ? -c : c }
            }
            return 0
        }
        rows.sort { order($0, $1) < 0 }
        func position(_ cursor: FuzzCursor) -> [DocumentValue]? {
            switch cursor.source {
            case .values(let values):
                return zip(values, orders).map { value, order in
                    order.field == "__name__" ? nameOperand(value, query.target) : value
                }
            case .document(let path):
                guard let data = documents[path] else { return nil }
                var values: [DocumentValue] = []
                for order in orders {
                    guard let value = Self.value(order.field, path, data) else { return nil }
                    values.append(value)
                }
                return values
            }
        }
        func relation(_ row: (path: String, data: DocumentData), _ values: [DocumentValue]) -> Int {
            for (value, order) in zip(values, orders) {
                let c = compare(Self.value(order.field, row.path, row.data) ?? .null, value)
                if c != 0 { return order.descending ? -c : c }
            }
            return 0
        }
        if let start = query.start {
            guard let values = position(start) else { return nil }
            rows = rows.filter {
                let c = relation($0, values); return c > 0 || (c == 0 && start.inclusive)
            }
        }
        if let end = query.end {
            guard let values = position(end) else { return nil }
            rows = rows.filter {
                let c = relation($0, values); return c < 0 || (c == 0 && end.inclusive)
            }
        }
        if let limit = query.limit, rows.count > limit {
            rows = query.limitToLast ? Array(rows.suffix(limit)) : Array(rows.prefix(limit))
        }
        switch query.aggregate {
        case nil: return .documents(rows)
        case .count: return .aggregate(.int(Int64(rows.count)))
        case .sum(let field): return .aggregate(sum(rows.compactMap { value(field, $0.path, $0.data) }))
        case .average(let field): return .aggregate(average(rows.compactMap { value(field, $0.path, $0.data) }))
        }
    }

    /// Firestore's sum: an integer while every value is one and the sum fits, else a double.
    static func sum(_ values: [DocumentValue]) -> DocumentValue {
        var integer: Int64? = 0
        var total = 0.0
        for value in values {
            switch value {
            case .int(let n):
                if let sum = integer {
                    let (next, overflow) = sum.addingReportingOverflow(n)
                    if overflow {
                        integer = nil
                        total = Double(sum) + Double(n)
                    } else {
                        integer = next
                    }
                } else {
                    total += Double(n)
                }
            case .double(let d):
                if let sum = integer {
                    integer = nil
                    total = Double(sum)
                }
                total += d
            default: continue
            }
        }
        return integer.map(DocumentValue.int) ?? .double(total)
    }

    static func average(_ values: [DocumentValue]) -> DocumentValue {
        var total = 0.0
        var count = 0
        for value in values {
            switch value {
            case .int(let n): total += Double(n)
            case .double(let d): total += d
            default: continue
            }
            count += 1
        }
        return count == 0 ? .null : .double(total / Double(count))
    }
}
