import Documents
import SuiteCore

/// A value while rules are evaluated: Firestore's rules types.
indirect enum RulesValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    /// Nanoseconds since the Unix epoch.
    case timestamp(Int64)
    /// Nanoseconds.
    case duration(Int64)
    /// A path's segments: `/databases/(default)/documents/users/ana` is 5.
    case path([String])
    case list([RulesValue])
    /// Distinct values (order kept as first seen).
    case set([RulesValue])
    case map([String: RulesValue])
    case latlng(Double, Double)
    /// `a.diff(b)`: what changed from `b` to `a`.
    case mapDiff(new: [String: RulesValue], old: [String: RulesValue])

    /// The names `is` accepts.
    static let typeNames: Set<String> = [
        "bool", "bytes", "duration", "float", "int", "latlng", "list", "map", "map_diff", "number", "path", "set",
        "string", "timestamp",
    ]

    /// The namespaces whose functions are called as `namespace.function(…)`.
    static let namespaces: Set<String> = ["math", "timestamp", "duration", "latlng", "hashing"]

    /// The type's name, as `is` and error messages use it.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .bytes: "bytes"
        case .timestamp: "timestamp"
        case .duration: "duration"
        case .path: "path"
        case .list: "list"
        case .set: "set"
        case .map: "map"
        case .latlng: "latlng"
        case .mapDiff: "map_diff"
        }
    }

    /// Whether `is type` holds.
    func isType(_ name: String) -> Bool {
        if name == "number" { return typeName == "int" || typeName == "float" }
        return typeName == name
    }

    // MARK: From stored values

    /// A stored value as rules see it; a reference becomes the full path of its document in `database`.
    init(_ value: DocumentValue, database: String = "(default)") {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let n): self = .int(n)
        case .double(let d): self = .float(d)
        case .timestamp(let t): self = .timestamp(t.microseconds &* 1_000)
        case .string(let s): self = .string(s)
        case .bytes(let b): self = .bytes(b)
        case .reference(let path):
            self = .path(["databases", database, "documents"] + path.split(separator: "/").map(String.init))
        case .geoPoint(let point): self = .latlng(point.latitude, point.longitude)
        case .array(let items): self = .list(items.map { RulesValue($0, database: database) })
        case .map(let fields): self = .map(fields.mapValues { RulesValue($0, database: database) })
        }
    }

    /// A document's fields.
    static func data(_ data: DocumentData, database: String = "(default)") -> RulesValue {
        .map(data.mapValues { RulesValue($0, database: database) })
    }

    /// JSON (a token's claims).
    init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .array(let items): self = .list(items.map(RulesValue.init(json:)))
        case .object(let fields): self = .map(fields.mapValues(RulesValue.init(json:)))
        case .int(let n): self = .int(n)
        case .double(let d): self = .float(d)
        }
    }

    // MARK: Equality and order

    /// Firestore's `==`: numbers compare across int and float; values of different types are unequal.
    func equals(_ other: RulesValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b
        case (.int(let a), .float(let b)): return Double(a) == b
        case (.float(let a), .int(let b)): return a == Double(b)
        case (.string(let a), .string(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.duration(let a), .duration(let b)): return a == b
        case (.path(let a), .path(let b)): return a == b
        case (.latlng(let a1, let a2), .latlng(let b1, let b2)): return a1 == b1 && a2 == b2
        case (.list(let a), .list(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.equals($1) }
        case (.set(let a), .set(let b)):
            return a.count == b.count && a.allSatisfy { item in b.contains { $0.equals(item) } }
        case (.map(let a), .map(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { $0.equals(value) } ?? false }
        default: return false
        }
    }

    /// Firestore's `<`: numbers, strings (by UTF-8 bytes), timestamps, durations and lists; anything else is an error.
    func compare(_ other: RulesValue) -> Int? {
        func order<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        switch (self, other) {
        case (.int(let a), .int(let b)): return order(a, b)
        case (.float(let a), .float(let b)): return a.isNaN || b.isNaN ? nil : order(a, b)
        case (.int(let a), .float(let b)): return b.isNaN ? nil : order(Double(a), b)
        case (.float(let a), .int(let b)): return a.isNaN ? nil : order(a, Double(b))
        case (.string(let a), .string(let b)):
            if a == b { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.timestamp(let a), .timestamp(let b)): return order(a, b)
        case (.duration(let a), .duration(let b)): return order(a, b)
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.list(let a), .list(let b)):
            for (x, y) in zip(a, b) {
                guard let result = x.compare(y) else { return nil }
                if result != 0 { return result }
            }
            return order(a.count, b.count)
        default: return nil
        }
    }

    /// Whether `item` is in a list or set, or a key of a map.
    func contains(_ item: RulesValue) -> Bool? {
        switch self {
        case .list(let items), .set(let items): return items.contains { $0.equals(item) }
        case .map(let fields):
            guard case .string(let key) = item else { return false }
            return fields[key] != nil
        default: return nil
        }
    }

    /// Distinct values, first occurrence kept.
    static func distinct(_ items: [RulesValue]) -> [RulesValue] {
        var result: [RulesValue] = []
        for item in items where !result.contains(where: { $0.equals(item) }) { result.append(item) }
        return result
    }

}
