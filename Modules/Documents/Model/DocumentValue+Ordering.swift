extension DocumentValue {
    /// The value's rank in Firestore's cross-type ordering:
    /// 0 null, 1 boolean, 2 number (int and double), 3 timestamp, 4 string, 5 bytes, 6 reference, 7 geo point,
    /// 8 array, 9 vector (Firestore's `{"__type__": "__vector__", "value": [numbers]}` map), 10 map.
    public var typeOrder: Int {
        switch self {
        case .map(let map) where Self.vectorElements(map) != nil: 9
        case .null: 0
        case .bool: 1
        case .int, .double: 2
        case .timestamp: 3
        case .string: 4
        case .bytes: 5
        case .reference: 6
        case .geoPoint: 7
        case .array: 8
        case .map: 10
        }
    }

    /// The numbers of a vector value: a map holding exactly `__type__: "__vector__"` and `value`, an array of numbers
    /// (Firestore's vector type); nil for any other map.
    public static func vectorElements(_ map: [String: DocumentValue]) -> [DocumentValue]? {
        guard map.count == 2, case .string("__vector__")? = map["__type__"], case .array(let elements)? = map["value"]
        else { return nil }
        for element in elements {
            switch element {
            case .int, .double: continue
            default: return nil
            }
        }
        return elements
    }

    /// Three-way comparison in Firestore's value ordering: negative if `a` sorts first, zero if the two are
    /// equivalent, positive if `b` sorts first.
    ///
    /// Types order by ``typeOrder``. Within a type: `false < true`; numbers numerically, ints and doubles on one
    /// line (exact even beyond 2^53), NaN before every other number, NaN equivalent to NaN, `-0.0` equivalent to
    /// `0` and `0.0`; timestamps by time; strings and bytes by (UTF-8) bytes; references segment by segment;
    /// geo points by latitude then longitude; arrays element by element, shorter first on a tie; vectors by their
    /// dimension, then element by element; maps by their entries in key order (key, then value), fewer entries first
    /// on a tie.
    public static func compare(_ a: DocumentValue, _ b: DocumentValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.int(let x), .int(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.double(let x), .double(let y)): return compareDoubles(x, y)
        case (.int(let x), .double(let y)): return compareIntDouble(x, y)
        case (.double(let x), .int(let y)): return -compareIntDouble(y, x)
        case (.timestamp(let x), .timestamp(let y)):
            return x.microseconds < y.microseconds ? -1 : (x.microseconds > y.microseconds ? 1 : 0)
        case (.string(let x), .string(let y)): return UTF8Order.compare(x, y)
        case (.bytes(let x), .bytes(let y)): return UTF8Order.compare(x, y)
        case (.reference(let x), .reference(let y)): return UTF8Order.comparePaths(x, y)
        case (.geoPoint(let x), .geoPoint(let y)):
            let c = compareDoubles(x.latitude, y.latitude)
            return c != 0 ? c : compareDoubles(x.longitude, y.longitude)
        case (.array(let x), .array(let y)):
            for (u, v) in zip(x, y) {
                let c = compare(u, v)
                if c != 0 { return c }
            }
            return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
        case (.map(let x), .map(let y)):
            switch (vectorElements(x), vectorElements(y)) {
            case (let u?, let v?):
                if u.count != v.count { return u.count < v.count ? -1 : 1 }
                for (p, q) in zip(u, v) {
                    let c = compare(p, q)
                    if c != 0 { return c }
                }
                return 0
            case (nil, nil): return compareMaps(x, y)
            case (nil, _?): return 1
            case (_?, nil): return -1
            }
        default:
            let (s, t) = (a.typeOrder, b.typeOrder)
            return s < t ? -1 : (s > t ? 1 : 0)
        }
    }

    /// Compares doubles with NaN first (NaN equivalent to NaN) and `-0.0` equivalent to `0.0`.
    @inline(__always)
    static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        if x < y { return -1 }
        if x > y { return 1 }
        if x == y { return 0 }
        // At least one is NaN.
        if x.isNaN { return y.isNaN ? 0 : -1 }
        return 1
    }

    /// Compares an integer with a double exactly (no rounding of large integers); NaN sorts first.
    static func compareIntDouble(_ x: Int64, _ y: Double) -> Int {
        if y.isNaN { return 1 }
        // 2^63 is exactly representable as a Double; every Int64 is below it and at or above -2^63.
        if y >= 9_223_372_036_854_775_808.0 { return -1 }
        if y < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = y.rounded(.down)
        let whole = Int64(floor)  // exact: -2^63 <= floor < 2^63
        if x < whole { return -1 }
        if x > whole { return 1 }
        return floor < y ? -1 : 0
    }

    private static func compareMaps(_ x: [String: DocumentValue], _ y: [String: DocumentValue]) -> Int {
        let xOrder = sortedIndices(x)
        let yOrder = sortedIndices(y)
        let (xKeys, yKeys, xValues, yValues) = (x.keys, y.keys, x.values, y.values)
        for (i, j) in zip(xOrder, yOrder) {
            let c = UTF8Order.compare(xKeys[i], yKeys[j])
            if c != 0 { return c }
            let v = compare(xValues[i], yValues[j])
            if v != 0 { return v }
        }
        return x.count < y.count ? -1 : (x.count > y.count ? 1 : 0)
    }

    /// The map's positions ordered by key in UTF-8 byte order.
    static func sortedIndices(_ map: [String: DocumentValue]) -> [Dictionary<String, DocumentValue>.Index] {
        UTF8Order.sortedIndices(map.keys)
    }

    /// The map's keys in UTF-8 byte order.
    static func sortedKeys(_ map: [String: DocumentValue]) -> [String] {
        let keys = map.keys
        return sortedIndices(map).map { keys[$0] }
    }
}

extension DocumentValue: Comparable {
    /// Firestore's value ordering (see ``compare(_:_:)``).
    ///
    /// Note that ordering equivalence is looser than `==`: `.int(1)` and `.double(1.0)` are neither `<` nor `>`
    /// each other (they are the same number), although they are different cases.
    public static func < (a: DocumentValue, b: DocumentValue) -> Bool { compare(a, b) < 0 }
}

extension DocumentValue {
    /// A short name of the value's type for messages ("a string", "a map").
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a double"
        case .timestamp: "a timestamp"
        case .string: "a string"
        case .bytes: "bytes"
        case .reference: "a reference"
        case .geoPoint: "a geo point"
        case .array: "an array"
        case .map(let map): Self.vectorElements(map) == nil ? "a map" : "a vector"
        }
    }
}
