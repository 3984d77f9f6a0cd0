/// Firestore comparison semantics used by the store (filters, transforms, sorting).
enum ValueSemantics {
    /// Equality in Firestore's value order: `1 == 1.0`, NaN equals NaN.
    static func equal(_ a: DocumentValue, _ b: DocumentValue) -> Bool {
        if a == b { return true }
        guard a.typeOrder == b.typeOrder else { return false }
        return !(a < b) && !(b < a)
    }

    /// Whether the value is NaN.
    static func isNaN(_ value: DocumentValue) -> Bool {
        if case .double(let d) = value { return d.isNaN }
        return false
    }
}
