public import Foundation
import SuiteCore

/// A Swift type that converts to a ``DocumentValue`` and back: `String`, `Bool`, `Int`, `Int64`, `Double`, `Date`,
/// ``Timestamp``, ``GeoPoint``, ``DocumentValue`` itself, and arrays and `[String: …]` dictionaries of them.
///
/// ```swift
/// let name = "Ana"
/// try await user.setData(["name": .value(name), "tags": .value(["vip", "early"])])
/// let points = try snapshot.get("points", as: Int.self)   // Int?, nil when the field is missing
/// ```
public protocol DocumentValueConvertible {
    /// The value as stored.
    var documentValue: DocumentValue { get }
    /// The Swift value of `documentValue`, or nil when it holds another type (or a number out of this type's range).
    init?(documentValue: DocumentValue)
}

extension DocumentValue: DocumentValueConvertible {
    /// The value itself.
    public var documentValue: DocumentValue { self }
    /// The value itself.
    public init?(documentValue: DocumentValue) { self = documentValue }
}

extension String: DocumentValueConvertible {
    /// `.string(self)`.
    public var documentValue: DocumentValue { .string(self) }
    /// The string of a `.string` value.
    public init?(documentValue: DocumentValue) {
        guard case .string(let value) = documentValue else { return nil }
        self = value
    }
}

extension Bool: DocumentValueConvertible {
    /// `.bool(self)`.
    public var documentValue: DocumentValue { .bool(self) }
    /// The Boolean of a `.bool` value.
    public init?(documentValue: DocumentValue) {
        guard case .bool(let value) = documentValue else { return nil }
        self = value
    }
}

extension Int64: DocumentValueConvertible {
    /// `.int(self)`.
    public var documentValue: DocumentValue { .int(self) }
    /// The integer of an `.int` value.
    public init?(documentValue: DocumentValue) {
        guard case .int(let value) = documentValue else { return nil }
        self = value
    }
}

extension Int: DocumentValueConvertible {
    /// `.int(self)` (Firestore's integers are 64-bit).
    public var documentValue: DocumentValue { .int(Int64(self)) }
    /// The integer of an `.int` value that fits in `Int`.
    public init?(documentValue: DocumentValue) {
        guard case .int(let value) = documentValue, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: DocumentValueConvertible {
    /// `.double(self)`.
    public var documentValue: DocumentValue { .double(self) }
    /// The number of a `.double` or an `.int` value (Firestore compares them as numbers).
    public init?(documentValue: DocumentValue) {
        switch documentValue {
        case .double(let value): self = value
        case .int(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Date: DocumentValueConvertible {
    /// `.timestamp`, truncated to microseconds.
    public var documentValue: DocumentValue { .timestamp(Timestamp(self)) }
    /// The date of a `.timestamp` value.
    public init?(documentValue: DocumentValue) {
        guard case .timestamp(let value) = documentValue else { return nil }
        self = value.date
    }
}

extension Timestamp: DocumentValueConvertible {
    /// `.timestamp(self)`.
    public var documentValue: DocumentValue { .timestamp(self) }
    /// The timestamp of a `.timestamp` value.
    public init?(documentValue: DocumentValue) {
        guard case .timestamp(let value) = documentValue else { return nil }
        self = value
    }
}

extension GeoPoint: DocumentValueConvertible {
    /// `.geoPoint(self)`.
    public var documentValue: DocumentValue { .geoPoint(self) }
    /// The point of a `.geoPoint` value.
    public init?(documentValue: DocumentValue) {
        guard case .geoPoint(let value) = documentValue else { return nil }
        self = value
    }
}

extension Array: DocumentValueConvertible where Element: DocumentValueConvertible {
    /// `.array` of the elements' values.
    public var documentValue: DocumentValue { .array(map(\.documentValue)) }
    /// The elements of an `.array` value, when every one converts.
    public init?(documentValue: DocumentValue) {
        guard case .array(let values) = documentValue else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for value in values {
            guard let element = Element(documentValue: value) else { return nil }
            elements.append(element)
        }
        self = elements
    }
}

extension Dictionary: DocumentValueConvertible where Key == String, Value: DocumentValueConvertible {
    /// `.map` of the values.
    public var documentValue: DocumentValue { .map(mapValues(\.documentValue)) }
    /// The fields of a `.map` value, when every one converts.
    public init?(documentValue: DocumentValue) {
        guard case .map(let fields) = documentValue else { return nil }
        var result: [String: Value] = [:]
        result.reserveCapacity(fields.count)
        for (key, value) in fields {
            guard let converted = Value(documentValue: value) else { return nil }
            result[key] = converted
        }
        self = result
    }
}

extension DocumentValue {
    /// The stored form of a Swift value: `DocumentValue("Ana")`, `DocumentValue(30)`, `DocumentValue(Date())`,
    /// `DocumentValue(["a", "b"])`.
    public init(_ value: some DocumentValueConvertible) { self = value.documentValue }

    /// The value of an `Encodable` type, encoded as ``DocumentEncoder`` does (a struct becomes a map).
    public init(encoding value: some Encodable) throws { self = try DocumentEncoder().encodeValue(value) }
}

extension DocumentValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string: `"Ana"`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer: `30`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A double: `2.5`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A Boolean: `true`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array: `["vip", 3]`.
    public init(arrayLiteral elements: DocumentValue...) { self = .array(elements) }
    /// A map: `["city": "Paris"]`; of repeated keys, the last wins.
    public init(dictionaryLiteral elements: (String, DocumentValue)...) {
        var map: [String: DocumentValue] = [:]
        for (key, value) in elements { map[key] = value }
        self = .map(map)
    }
}

extension DocumentValue: CustomStringConvertible {
    /// The value as tagged JSON (``DocumentJSON``): `30`, `2.5`, `"Ana"`, `{"$timestamp":"2026-01-01T00:00:00Z"}`.
    public var description: String { DocumentJSON.json(from: self).jsonString }
}

extension FieldValue {
    /// A plain value from a Swift value: `.value(name)`, `.value(["a", "b"])`, `.value(Date())`.
    public static func value(_ value: some DocumentValueConvertible) -> FieldValue { FieldValue(value.documentValue) }

    /// A plain value from a Swift value.
    public init(_ value: some DocumentValueConvertible) { self.init(value.documentValue) }
}
