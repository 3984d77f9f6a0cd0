import SuiteCore

/// A bound of a value range.
struct ValueBound: Sendable {
    var value: DocumentValue
    var inclusive: Bool
}

/// The values one field may take, as the intersection of range filters (and type bounds).
struct ValueRange: Sendable {
    var lower: ValueBound?
    var upper: ValueBound?

    var isEmpty: Bool {
        guard let lower, let upper else { return false }
        let c = DocumentValue.compare(lower.value, upper.value)
        return c > 0 || (c == 0 && !(lower.inclusive && upper.inclusive))
    }

    mutating func raiseLower(_ value: DocumentValue, inclusive: Bool) {
        if let lower {
            let c = DocumentValue.compare(value, lower.value)
            if c < 0 || (c == 0 && (inclusive || !lower.inclusive)) { return }
        }
        lower = ValueBound(value: value, inclusive: inclusive)
    }

    mutating func lowerUpper(_ value: DocumentValue, inclusive: Bool) {
        if let upper {
            let c = DocumentValue.compare(value, upper.value)
            if c > 0 || (c == 0 && (inclusive || !upper.inclusive)) { return }
        }
        upper = ValueBound(value: value, inclusive: inclusive)
    }

    /// Adds a range filter, keeping the comparison within the value's type (Firestore semantics).
    mutating func add(_ filter: FieldFilter) {
        let type = filter.value.typeOrder
        switch filter.op {
        case .greater, .greaterOrEqual:
            raiseLower(filter.value, inclusive: filter.op == .greaterOrEqual)
            if let next = IndexPolicy.typeMinimum(type + 1) { lowerUpper(next, inclusive: false) }
        case .less, .lessOrEqual:
            lowerUpper(filter.value, inclusive: filter.op == .lessOrEqual)
            // NaN sorts first among numbers but matches no range filter: the range starts after it.
            if type == DocumentValue.double(.nan).typeOrder {
                raiseLower(.double(.nan), inclusive: false)
            } else if let minimum = IndexPolicy.typeMinimum(type) {
                raiseLower(minimum, inclusive: true)
            }
        default:
            break
        }
    }

    /// Key bounds (lower inclusive, upper exclusive) of this range for keys `prefix + key(value)` in an index whose
    /// field is ascending or descending.
    typealias KeyBounds = (lower: [UInt8]?, upper: [UInt8]?, empty: Bool)

    func keyBounds(prefix: [UInt8], descending: Bool) -> KeyBounds {
        if isEmpty { return (nil, nil, true) }
        func key(_ value: DocumentValue) -> [UInt8] {
            var key = prefix
            IndexKey.append(value, descending: descending, to: &key)
            return key
        }
        var lo: [UInt8]? = prefix.isEmpty ? nil : prefix
        var hi: [UInt8]? = prefix.isEmpty ? nil : IndexPolicy.successor(of: prefix)
        var empty = false
        // In key order, an ascending field's lower value bound is a lower key bound; a descending one's is upper.
        let keyLower: ValueBound? = descending ? upper : lower
        let keyUpper: ValueBound? = descending ? lower : upper
        if let bound = keyLower {
            let k = key(bound.value)
            if bound.inclusive {
                lo = k
            } else if let next = IndexPolicy.successor(of: k) {
                lo = next
            } else {
                empty = true
            }
        }
        if let bound = keyUpper {
            let k = key(bound.value)
            hi = bound.inclusive ? IndexPolicy.successor(of: k) : k
        }
        if let lo, let hi, IndexPolicy.compareBytes(lo, hi) >= 0 { empty = true }
        return (lo, hi, empty)
    }
}

/// Key bounds of a scan over an index with bounded keys (``IndexKey/bounded(_:)``).
struct BoundedKeyRange {
    var lower: [UInt8]?
    var upper: [UInt8]?
    var empty: Bool
    /// A bound was longer than a bounded key's prefix and was widened to it: the range reads a superset.
    var widened: Bool
}

extension BoundedKeyRange {
    /// `bounds` for an index whose keys are bounded: a bound longer than ``IndexKey/boundedPrefixLength`` is cut to
    /// that prefix (lower, inclusive) or to the prefix's successor (upper, exclusive), which keeps every key whose
    /// value is in range. Bounds up to the prefix length compare exactly with bounded keys.
    init(widening bounds: ValueRange.KeyBounds) {
        let cut = IndexKey.boundedPrefixLength
        self.init(lower: bounds.lower, upper: bounds.upper, empty: bounds.empty, widened: false)
        if let lower, lower.count > cut {
            self.lower = Array(lower[0..<cut])
            widened = true
        }
        if let upper, upper.count > cut {
            self.upper = IndexPolicy.successor(of: Array(upper[0..<cut]))
            widened = true
        }
    }
}

/// An equality a branch needs: `field == value`, or `field array-contains value`.
struct Equality: Sendable {
    var field: FieldPath
    var value: DocumentValue
    var contains: Bool
}
