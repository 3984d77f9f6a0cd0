/// Firestore comparison semantics used by the store (filters, transforms, sorting).
enum ValueSemantics {
    /// Equality in Firestore's value order: `1 == 1.0`, NaN equals NaN, strings equal when their UTF-8 bytes are.
    /// Not Swift's `==`, under which canonically equivalent strings are equal (`"é"` precomposed and `"e\u{301}"`),
    /// though Firestore (and the index keys) tell them apart.
    static func equal(_ a: DocumentValue, _ b: DocumentValue) -> Bool {
        guard a.typeOrder == b.typeOrder else { return false }
        return DocumentValue.compare(a, b) == 0
    }

    /// Whether the value is NaN.
    static func isNaN(_ value: DocumentValue) -> Bool {
        if case .double(let d) = value { return d.isNaN }
        return false
    }
}
