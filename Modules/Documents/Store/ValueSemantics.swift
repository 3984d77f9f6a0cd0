/// Firestore comparison semantics used by the store (filters, transforms, sorting).
enum ValueSemantics {
    /// Equality in Firestore's value order: `1 == 1.0`, NaN equals NaN.
    static func equal(_ a: DocumentValue, _ b: DocumentValue) -> Bool {
        if a == b { return true }
        guard a.typeOrder == b.typeOrder else { return false }
        return !(a < b) && !(b < a)
    }

    /// -1, 0 or 1 in Firestore's value order.
    static func compare(_ a: DocumentValue, _ b: DocumentValue) -> Int {
        if a < b { return -1 }
        if b < a { return 1 }
        return 0
    }

    /// A short name of the value's type for messages.
    static func typeName(_ value: DocumentValue) -> String {
        switch value {
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
        case .map: "a map"
        }
    }

    /// Whether the value is NaN.
    static func isNaN(_ value: DocumentValue) -> Bool {
        if case .double(let d) = value { return d.isNaN }
        return false
    }
}
