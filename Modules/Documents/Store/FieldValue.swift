/// A value in a write: a plain ``DocumentValue``, a map or list of write values, or a field transform that the store
/// applies at commit time (increment, server timestamp, array union / remove, delete field).
///
/// Literals work directly, so transforms sit beside plain values as in Firestore:
///
/// ```swift
/// try await store.document("stats/daily").setData(
///     ["orders": .increment(1), "updatedAt": .serverTimestamp, "label": "daily"], merge: true)
/// ```
///
/// Transforms are not allowed inside arrays. ``delete`` is only allowed in updates and merging sets.
public struct FieldValue: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case value(DocumentValue)
        case map([String: FieldValue])
        case array([FieldValue])
        case incrementInt(Int64)
        case incrementDouble(Double)
        case serverTimestamp
        case arrayUnion([DocumentValue])
        case arrayRemove([DocumentValue])
        case maximum(DocumentValue)
        case minimum(DocumentValue)
        case delete
    }

    let kind: Kind

    init(kind: Kind) { self.kind = kind }

    /// A plain value.
    public init(_ value: DocumentValue) { kind = .value(value) }

    /// Sets the field to the larger of its number and `operand` (Firestore's `maximum`); a missing field becomes
    /// `operand`.
    public static func maximum(_ operand: DocumentValue) -> FieldValue { FieldValue(kind: .maximum(operand)) }

    /// Sets the field to the smaller of its number and `operand` (Firestore's `minimum`); a missing field becomes
    /// `operand`.
    public static func minimum(_ operand: DocumentValue) -> FieldValue { FieldValue(kind: .minimum(operand)) }

    /// A plain value.
    public static func value(_ value: DocumentValue) -> FieldValue { FieldValue(value) }

    /// A map of write values (transforms may appear inside).
    public static func map(_ fields: [String: FieldValue]) -> FieldValue { FieldValue(kind: .map(fields)) }

    /// Adds `amount` to the field's number (a missing field counts as 0). Integer plus integer stays an integer
    /// (saturating at the 64-bit bounds); anything involving a double gives a double. A non-number is an error.
    public static func increment(_ amount: Int64) -> FieldValue { FieldValue(kind: .incrementInt(amount)) }

    /// Adds `amount` to the field's number; see ``increment(_:)-(Int64)``.
    public static func increment(_ amount: Int) -> FieldValue { FieldValue(kind: .incrementInt(Int64(amount))) }

    /// Adds `amount` to the field's number, giving a double.
    public static func increment(_ amount: Double) -> FieldValue { FieldValue(kind: .incrementDouble(amount)) }

    /// The commit's time (the store's clock), as a timestamp.
    public static let serverTimestamp = FieldValue(kind: .serverTimestamp)

    /// Removes the field (updates and merging sets only).
    public static let delete = FieldValue(kind: .delete)

    /// Appends each element the field's array does not already contain (a missing field becomes the list).
    /// A field holding a non-array is an error.
    public static func arrayUnion(_ elements: [DocumentValue]) -> FieldValue { FieldValue(kind: .arrayUnion(elements)) }

    /// Removes every occurrence of each element from the field's array (a missing field becomes `[]`).
    /// A field holding a non-array is an error.
    public static func arrayRemove(_ elements: [DocumentValue]) -> FieldValue {
        FieldValue(kind: .arrayRemove(elements))
    }

    /// Write values for every field of `data` (plain values, no transforms).
    public static func fields(_ data: DocumentData) -> [String: FieldValue] {
        var out: [String: FieldValue] = [:]
        out.reserveCapacity(data.count)
        for (key, value) in data { out[key] = FieldValue(value) }
        return out
    }

    /// Whether this value is a transform (not a plain value, map or array).
    var isTransform: Bool {
        switch kind {
        case .value, .map, .array: false
        default: true
        }
    }
}

extension FieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { kind = .value(.string(value)) }
    /// An integer value.
    public init(integerLiteral value: Int64) { kind = .value(.int(value)) }
    /// A double value.
    public init(floatLiteral value: Double) { kind = .value(.double(value)) }
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { kind = .value(.bool(value)) }
    /// An array value.
    public init(arrayLiteral elements: FieldValue...) { kind = .array(elements) }
    /// A map value.
    public init(dictionaryLiteral elements: (String, FieldValue)...) {
        var map: [String: FieldValue] = [:]
        for (key, value) in elements { map[key] = value }
        kind = .map(map)
    }
    /// Null.
    public init(nilLiteral: ()) { kind = .value(.null) }
}

/// A transform found while flattening a write value, applied at commit time.
package enum FieldTransform: Sendable, Hashable {
    case incrementInt(Int64)
    case incrementDouble(Double)
    case serverTimestamp
    case arrayUnion([DocumentValue])
    case arrayRemove([DocumentValue])
    case delete
    /// Firestore's `maximum`: the larger of the field and the operand (numbers only).
    case maximum(DocumentValue)
    /// Firestore's `minimum`: the smaller of the field and the operand (numbers only).
    case minimum(DocumentValue)

    /// Applies the transform to `current` (nil when the field is missing); nil result means "remove the field".
    func apply(to current: DocumentValue?, field: FieldPath, commitTime: Int64) throws -> DocumentValue? {
        switch self {
        case .delete:
            return nil
        case .serverTimestamp:
            return .timestamp(Timestamp(microseconds: commitTime))
        case .incrementInt(let amount):
            switch current {
            case nil: return .int(amount)
            case .int(let base)?:
                let (sum, overflow) = base.addingReportingOverflow(amount)
                if overflow { return .int(amount > 0 ? .max : .min) }
                return .int(sum)
            case .double(let base)?: return .double(base + Double(amount))
            case let other?: throw Self.wrongType("increment", field: field, found: other, expected: "a number")
            }
        case .incrementDouble(let amount):
            switch current {
            case nil: return .double(amount)
            case .int(let base)?: return .double(Double(base) + amount)
            case .double(let base)?: return .double(base + amount)
            case let other?: throw Self.wrongType("increment", field: field, found: other, expected: "a number")
            }
        case .arrayUnion(let elements):
            var array: [DocumentValue]
            switch current {
            case nil: array = []
            case .array(let existing)?: array = existing
            case let other?: throw Self.wrongType("arrayUnion", field: field, found: other, expected: "an array")
            }
            for element in elements where !array.contains(where: { ValueSemantics.equal($0, element) }) {
                array.append(element)
            }
            return .array(array)
        case .arrayRemove(let elements):
            switch current {
            case nil: return .array([])
            case .array(let existing)?:
                return .array(existing.filter { value in !elements.contains { ValueSemantics.equal($0, value) } })
            case let other?: throw Self.wrongType("arrayRemove", field: field, found: other, expected: "an array")
            }
        case .maximum(let operand), .minimum(let operand):
            switch current {
            case nil, .int?, .double?: return applyAsFirestore(to: current, commitTime: commitTime)
            case let other?:
                throw Self.wrongType(
                    self == .maximum(operand) ? "maximum" : "minimum", field: field, found: other, expected: "a number")
            }
        }
    }

    /// Applies the transform as Firestore's protocol defines it, where a field of another type is no error: an
    /// increment, `maximum` or `minimum` of a missing or non-numeric field sets the operand; `arrayUnion` and
    /// `arrayRemove` of a non-array start from an empty array. Integer overflow saturates; an int and a double
    /// compare as numbers and the result keeps the type of the operand that won; equal operands keep the field.
    package func applyAsFirestore(to current: DocumentValue?, commitTime: Int64) -> DocumentValue {
        switch self {
        case .delete, .serverTimestamp:
            return .timestamp(Timestamp(microseconds: commitTime))
        case .incrementInt(let amount):
            switch current {
            case .int(let base)?:
                let (sum, overflow) = base.addingReportingOverflow(amount)
                return .int(overflow ? (amount > 0 ? .max : .min) : sum)
            case .double(let base)?: return .double(base + Double(amount))
            default: return .int(amount)
            }
        case .incrementDouble(let amount):
            switch current {
            case .int(let base)?: return .double(Double(base) + amount)
            case .double(let base)?: return .double(base + amount)
            default: return .double(amount)
            }
        case .arrayUnion(let elements):
            var array: [DocumentValue] = []
            if case .array(let existing)? = current { array = existing }
            for element in elements where !array.contains(where: { ValueSemantics.equal($0, element) }) {
                array.append(element)
            }
            return .array(array)
        case .arrayRemove(let elements):
            guard case .array(let existing)? = current else { return .array([]) }
            return .array(existing.filter { value in !elements.contains { ValueSemantics.equal($0, value) } })
        case .maximum(let operand), .minimum(let operand):
            let isMaximum = if case .maximum = self { true } else { false }
            guard let current, let a = Self.number(current), let b = Self.number(operand) else { return operand }
            if a.isNaN { return current }
            if b.isNaN { return operand }
            if a == b { return current }
            return (b > a) == isMaximum ? operand : current
        }
    }

    /// The write value that flattens to this transform.
    var kind: FieldValue.Kind {
        switch self {
        case .incrementInt(let n): .incrementInt(n)
        case .incrementDouble(let n): .incrementDouble(n)
        case .serverTimestamp: .serverTimestamp
        case .arrayUnion(let e): .arrayUnion(e)
        case .arrayRemove(let e): .arrayRemove(e)
        case .delete: .delete
        case .maximum(let v): .maximum(v)
        case .minimum(let v): .minimum(v)
        }
    }

    private static func number(_ value: DocumentValue) -> Double? {
        switch value {
        case .int(let n): Double(n)
        case .double(let d): d
        default: nil
        }
    }

    static func wrongType(_ transform: String, field: FieldPath, found: DocumentValue, expected: String)
        -> DocumentsError
    {
        DocumentsError(
            .invalidValue,
            "cannot apply \(transform) to field '\(field.canonicalString)': it holds \(found.typeName), "
                + "not \(expected)",
            hint: "set the field to \(expected) first, or delete it")
    }
}

/// A write value split into its plain part and the transforms nested in it.
struct FlattenedWrite {
    /// The plain value with transforms removed; `nil` when the value itself is a transform.
    var literal: DocumentValue?
    /// Transforms at their full field paths.
    var transforms: [(FieldPath, FieldTransform)]
}

extension FieldValue {
    /// Splits the value at `path` into a literal (transforms stripped) and transforms at full paths.
    func flatten(at path: FieldPath) throws -> FlattenedWrite {
        switch kind {
        case .value(let value):
            return FlattenedWrite(literal: value, transforms: [])
        case .array(let elements):
            var values: [DocumentValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = try element.plainValue() else {
                    throw DocumentsError(
                        .invalidValue,
                        "field transforms are not allowed inside arrays (field '\(path.canonicalString)')",
                        hint: "use arrayUnion / arrayRemove on the array field instead")
                }
                values.append(value)
            }
            return FlattenedWrite(literal: .array(values), transforms: [])
        case .map(let fields):
            var map: [String: DocumentValue] = [:]
            var transforms: [(FieldPath, FieldTransform)] = []
            for (key, value) in fields {
                let child = try FieldPath(segments: path.segments + [key])
                let flat = try value.flatten(at: child)
                if let literal = flat.literal { map[key] = literal }
                transforms.append(contentsOf: flat.transforms)
            }
            return FlattenedWrite(literal: .map(map), transforms: transforms)
        case .incrementInt(let n): return FlattenedWrite(literal: nil, transforms: [(path, .incrementInt(n))])
        case .incrementDouble(let n): return FlattenedWrite(literal: nil, transforms: [(path, .incrementDouble(n))])
        case .serverTimestamp: return FlattenedWrite(literal: nil, transforms: [(path, .serverTimestamp)])
        case .arrayUnion(let e): return FlattenedWrite(literal: nil, transforms: [(path, .arrayUnion(e))])
        case .arrayRemove(let e): return FlattenedWrite(literal: nil, transforms: [(path, .arrayRemove(e))])
        case .maximum(let v): return FlattenedWrite(literal: nil, transforms: [(path, .maximum(v))])
        case .minimum(let v): return FlattenedWrite(literal: nil, transforms: [(path, .minimum(v))])
        case .delete: return FlattenedWrite(literal: nil, transforms: [(path, .delete)])
        }
    }

    /// The value as a plain ``DocumentValue``, or nil when it is (or contains) a transform.
    func plainValue() throws -> DocumentValue? {
        switch kind {
        case .value(let value): return value
        case .array(let elements):
            var values: [DocumentValue] = []
            for element in elements {
                guard let value = try element.plainValue() else { return nil }
                values.append(value)
            }
            return .array(values)
        case .map(let fields):
            var map: [String: DocumentValue] = [:]
            for (key, value) in fields {
                guard let plain = try value.plainValue() else { return nil }
                map[key] = plain
            }
            return .map(map)
        default: return nil
        }
    }
}
