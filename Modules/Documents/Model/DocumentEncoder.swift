import Foundation

/// Encodes `Encodable` values into document fields.
///
/// Structs and classes become maps, arrays become arrays, optionals that are `nil` are left out. `Date` and
/// ``Timestamp`` become `.timestamp`, `Data` becomes `.bytes`, ``GeoPoint`` `.geoPoint`, ``DocumentPath``
/// `.reference`, `URL` its string, `Decimal` a double. A ``DocumentID`` property is never stored.
/// ```swift
/// struct User: Codable { @DocumentID var id: String?; var name: String; var joined: Date }
/// let data = try DocumentEncoder().encode(User(name: "Ann", joined: .now))   // ["name": …, "joined": .timestamp(…)]
/// ```
public struct DocumentEncoder: Sendable {
    /// Creates an encoder.
    public init() {}

    /// Encodes `value`, which must encode as a keyed container (a struct, a class or a `[String: …]` dictionary).
    ///
    /// Throws ``DocumentsError`` `.invalidValue` (with a hint) when the value is not a map or a field cannot be
    /// represented (e.g. a `UInt64` above `Int64.max`).
    public func encode<T: Encodable>(_ value: T) throws -> DocumentData {
        let result = try encodeValue(value)
        guard case .map(let data) = result else {
            throw DocumentsError(
                .invalidValue,
                "a \(T.self) encodes as \(Self.describe(result)), but a document must be a map of fields",
                hint: "encode a struct, a class or a [String: …] dictionary")
        }
        return data
    }

    /// Encodes any `Encodable` value into a single document value (e.g. a field value for an update).
    public func encodeValue<T: Encodable>(_ value: T) throws -> DocumentValue {
        do {
            return try DocumentValueEncoder.box(value, codingPath: []).resolve()
        } catch let error as EncodingError {
            throw DocumentsError(
                .invalidValue, Self.describe(error),
                hint: "store the field as a supported type (Int64 range integers, Double, String, Date, Data, …)",
                underlying: error)
        }
    }

    static func describe(_ value: DocumentValue) -> String {
        switch value {
        case .map: "a map"
        case .array: "a list"
        case .null: "null"
        default: "a single value"
        }
    }

    static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "field '\(path)': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

/// One node of the value being encoded: finished values, or containers still being filled.
enum EncodingSlot {
    case value(DocumentValue)
    case map(EncodingMap)
    case array(EncodingArray)
    /// A super-encoder's output, read when the tree is resolved.
    case deferred(DocumentValueEncoder)

    func resolve() -> DocumentValue {
        switch self {
        case .deferred(let encoder): encoder.slot?.resolve() ?? .map([:])
        case .value(let v): v
        case .map(let m): .map(m.entries.mapValues { $0.resolve() })
        case .array(let a): .array(a.items.map { $0.resolve() })
        }
    }
}

final class EncodingMap {
    var entries: [String: EncodingSlot] = [:]
}

final class EncodingArray {
    var items: [EncodingSlot] = []
}

/// The `Encoder` behind ``DocumentEncoder``.
final class DocumentValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var slot: EncodingSlot?

    init(codingPath: [any CodingKey]) { self.codingPath = codingPath }

    /// Encodes one value, handling the types documents store natively; `codingPath` is built only when needed.
    static func box<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws -> EncodingSlot {
        // Compare metatypes first: a failed dynamic cast is far slower than a pointer comparison.
        if T.self == String.self, let v = value as? String { return .value(.string(v)) }
        if T.self == Int.self, let v = value as? Int { return .value(.int(Int64(v))) }
        if T.self == Double.self, let v = value as? Double { return .value(.double(v)) }
        if T.self == Bool.self, let v = value as? Bool { return .value(.bool(v)) }
        if T.self == Int64.self, let v = value as? Int64 { return .value(.int(v)) }
        if T.self == Date.self, let v = value as? Date { return .value(.timestamp(Timestamp(v))) }
        if T.self == Timestamp.self, let v = value as? Timestamp { return .value(.timestamp(v)) }
        if T.self == Data.self, let v = value as? Data { return .value(.bytes([UInt8](v))) }
        if T.self == GeoPoint.self, let v = value as? GeoPoint { return .value(.geoPoint(v)) }
        if T.self == DocumentPath.self, let v = value as? DocumentPath { return .value(.reference(v.string)) }
        if T.self == URL.self, let v = value as? URL { return .value(.string(v.absoluteString)) }
        if T.self == Decimal.self, let v = value as? Decimal {
            return .value(.double(NSDecimalNumber(decimal: v).doubleValue))
        }
        if T.self == Float.self, let v = value as? Float { return .value(.double(Double(v))) }
        if T.self == Int32.self, let v = value as? Int32 { return .value(.int(Int64(v))) }
        if T.self == Int16.self, let v = value as? Int16 { return .value(.int(Int64(v))) }
        if T.self == Int8.self, let v = value as? Int8 { return .value(.int(Int64(v))) }
        if T.self == UInt32.self, let v = value as? UInt32 { return .value(.int(Int64(v))) }
        if T.self == UInt16.self, let v = value as? UInt16 { return .value(.int(Int64(v))) }
        if T.self == UInt8.self, let v = value as? UInt8 { return .value(.int(Int64(v))) }
        if T.self == UInt.self, let v = value as? UInt { return try .value(.int(unsigned(UInt64(v), codingPath()))) }
        if T.self == UInt64.self, let v = value as? UInt64 { return try .value(.int(unsigned(v, codingPath()))) }
        let encoder = DocumentValueEncoder(codingPath: codingPath())
        try value.encode(to: encoder)
        return encoder.slot ?? .map(EncodingMap())
    }

    static func unsigned(_ v: UInt64, _ codingPath: [any CodingKey]) throws -> Int64 {
        guard let i = Int64(exactly: v) else {
            throw EncodingError.invalidValue(
                v,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "\(v) does not fit in a 64-bit signed integer"))
        }
        return i
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: EncodingMap
        if case .map(let existing)? = slot {
            map = existing
        } else {
            map = EncodingMap()
            slot = .map(map)
        }
        return KeyedEncodingContainer(KeyedContainer(map: map, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodingArray
        if case .array(let existing)? = slot {
            array = existing
        } else {
            array = EncodingArray()
            slot = .array(array)
        }
        return UnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let map: EncodingMap
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { map.entries[key.stringValue] = .value(.null) }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            map.entries[key.stringValue] = .value(.bool(value))
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            map.entries[key.stringValue] = .value(.string(value))
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            map.entries[key.stringValue] = .value(.double(value))
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            map.entries[key.stringValue] = .value(.int(Int64(value)))
        }
        mutating func encode(_ value: Int64, forKey key: Key) throws {
            map.entries[key.stringValue] = .value(.int(value))
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if value is DocumentID { return }  // the id lives in the path, never in the fields
            map.entries[key.stringValue] = try DocumentValueEncoder.box(value, codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            let nested = EncodingMap()
            map.entries[key.stringValue] = .map(nested)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(map: nested, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = EncodingArray()
            map.entries[key.stringValue] = .array(nested)
            return UnkeyedContainer(array: nested, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder { makeSuperEncoder(name: "super", path: codingPath) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            makeSuperEncoder(name: key.stringValue, path: codingPath + [key])
        }

        private func makeSuperEncoder(name: String, path: [any CodingKey]) -> any Encoder {
            let encoder = DocumentValueEncoder(codingPath: path)
            map.entries[name] = .deferred(encoder)
            return encoder
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let array: EncodingArray
        let codingPath: [any CodingKey]
        var count: Int { array.items.count }

        mutating func encodeNil() throws { array.items.append(.value(.null)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            array.items.append(
                try DocumentValueEncoder.box(value, codingPath: codingPath + [IndexKeyPath(array.items.count)]))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            let nested = EncodingMap()
            let path = codingPath + [IndexKeyPath(array.items.count)]
            array.items.append(.map(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(map: nested, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = EncodingArray()
            let path = codingPath + [IndexKeyPath(array.items.count)]
            array.items.append(.array(nested))
            return UnkeyedContainer(array: nested, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let encoder = DocumentValueEncoder(codingPath: codingPath + [IndexKeyPath(array.items.count)])
            array.items.append(.deferred(encoder))
            return encoder
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: DocumentValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.slot = .value(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.slot = try DocumentValueEncoder.box(value, codingPath: codingPath)
        }
    }
}

/// An array position as a coding key.
struct IndexKeyPath: CodingKey {
    let intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
