import Foundation

/// Decodes document fields into `Decodable` values.
///
/// The reverse of ``DocumentEncoder``: maps become structs or classes, `.timestamp` becomes `Date` or
/// ``Timestamp``, `.bytes` `Data`, `.geoPoint` ``GeoPoint``, `.reference` ``DocumentPath`` (or `String`).
/// Integers decode into floating-point properties, and doubles with no fraction into integer properties.
/// A ``DocumentID`` property receives the id of `path`.
/// ```swift
/// let user = try DocumentDecoder().decode(User.self, from: data, path: try DocumentPath("users/u1"))
/// ```
public struct DocumentDecoder: Sendable {
    /// Creates a decoder.
    public init() {}

    /// Decodes `type` from a document's fields; `path` supplies ``DocumentID`` properties.
    ///
    /// Throws ``DocumentsError`` `.invalidValue` (with a hint, naming the field) when a field is missing or has
    /// the wrong type.
    public func decode<T: Decodable>(_ type: T.Type, from data: DocumentData, path: DocumentPath? = nil) throws -> T {
        try decode(type, fromValue: .map(data), path: path)
    }

    /// Decodes `type` from a single document value.
    public func decode<T: Decodable>(_ type: T.Type, fromValue value: DocumentValue, path: DocumentPath? = nil) throws
        -> T
    {
        do {
            return try DocumentValueDecoder.unbox(value, as: type, codingPath: [], documentID: path?.documentID)
        } catch let error as DecodingError {
            throw DocumentsError(
                .invalidValue, "cannot decode \(T.self): " + Self.describe(error),
                hint: "make the type's properties match the stored fields (optional for fields that may be missing)",
                underlying: error)
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            var out = ""
            for key in path {
                if key is IndexKeyPath {
                    out += key.stringValue
                } else {
                    if !out.isEmpty { out += "." }
                    out += key.stringValue
                }
            }
            return out
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = field(context.codingPath)
            return "field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)' is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = field(context.codingPath)
            return path.isEmpty ? context.debugDescription : "field '\(path)': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// The `Decoder` behind ``DocumentDecoder``.
struct DocumentValueDecoder: Decoder {
    let value: DocumentValue
    let codingPath: [any CodingKey]
    let documentID: String?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func mismatch(_ type: Any.Type, _ value: DocumentValue, _ codingPath: [any CodingKey]) -> DecodingError {
        .typeMismatch(
            type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(value.typeName)"))
    }

    /// Decodes one value, handling the types documents store natively.
    ///
    /// It stays one dispatch over those types: specialised for one `T`, every `T.self ==` test folds to a constant
    /// and all but one branch disappear, so splitting would add calls without shortening what runs.
    static func unbox<T: Decodable>(
        _ value: DocumentValue, as type: T.Type, codingPath: @autoclosure () -> [any CodingKey], documentID: String?
    ) throws -> T {
        // Fast paths for the common cases, without building a coding path.
        switch value {
        case .string(let s): if T.self == String.self, let r = s as? T { return r }
        case .int(let i): if T.self == Int.self, let r = Int(exactly: i) as? T { return r }
        case .double(let d): if T.self == Double.self, let r = d as? T { return r }
        case .bool(let b): if T.self == Bool.self, let r = b as? T { return r }
        default: break
        }
        let codingPath = codingPath()
        if T.self == String.self {
            switch value {
            case .string(let s), .reference(let s): if let r = s as? T { return r }
            default: break
            }
            throw mismatch(type, value, codingPath)
        }
        if T.self == Int.self || T.self == Int64.self || T.self == Int32.self || T.self == Int16.self
            || T.self == Int8.self || T.self == UInt.self || T.self == UInt64.self || T.self == UInt32.self
            || T.self == UInt16.self || T.self == UInt8.self
        {
            let wide: Int64
            switch value {
            case .int(let i): wide = i
            case .double(let d):
                guard let exact = Int64(exactly: d) else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath, debugDescription: "\(d) is not a whole number for \(T.self)"))
                }
                wide = exact
            default: throw mismatch(type, value, codingPath)
            }
            if let r = integer(wide, as: type) { return r }
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "\(wide) does not fit in \(T.self)"))
        }
        if T.self == Double.self || T.self == Float.self {
            let d: Double
            switch value {
            case .double(let x): d = x
            case .int(let i): d = Double(i)
            default: throw mismatch(type, value, codingPath)
            }
            if let r = (T.self == Float.self ? Float(d) as Any : d as Any) as? T { return r }
        }
        if T.self == Bool.self {
            if case .bool(let b) = value, let r = b as? T { return r }
            throw mismatch(type, value, codingPath)
        }
        if T.self == Date.self || T.self == Timestamp.self {
            guard case .timestamp(let t) = value else { throw mismatch(type, value, codingPath) }
            if let r = (T.self == Date.self ? t.date as Any : t as Any) as? T { return r }
        }
        if T.self == Data.self {
            guard case .bytes(let b) = value, let r = Data(b) as? T else { throw mismatch(type, value, codingPath) }
            return r
        }
        if T.self == GeoPoint.self {
            guard case .geoPoint(let g) = value, let r = g as? T else { throw mismatch(type, value, codingPath) }
            return r
        }
        if T.self == DocumentPath.self {
            guard case .reference(let s) = value else { throw mismatch(type, value, codingPath) }
            do {
                if let r = try DocumentPath(s) as? T { return r }
            } catch let error as DocumentsError {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: error.message))
            }
        }
        if T.self == DocumentID.self, let r = DocumentID(wrappedValue: documentID) as? T { return r }
        if T.self == URL.self {
            guard case .string(let s) = value, let url = URL(string: s), let r = url as? T else {
                throw mismatch(type, value, codingPath)
            }
            return r
        }
        if T.self == Decimal.self {
            let decimal: Decimal
            switch value {
            case .int(let i): decimal = Decimal(i)
            case .double(let d): decimal = Decimal(d)
            default: throw mismatch(type, value, codingPath)
            }
            if let r = decimal as? T { return r }
        }
        return try T(from: DocumentValueDecoder(value: value, codingPath: codingPath, documentID: documentID))
    }

    static func integer<T>(_ v: Int64, as type: T.Type) -> T? {
        switch type {
        case is Int.Type: Int(exactly: v) as? T
        case is Int64.Type: v as? T
        case is Int32.Type: Int32(exactly: v) as? T
        case is Int16.Type: Int16(exactly: v) as? T
        case is Int8.Type: Int8(exactly: v) as? T
        case is UInt.Type: UInt(exactly: v) as? T
        case is UInt64.Type: UInt64(exactly: v) as? T
        case is UInt32.Type: UInt32(exactly: v) as? T
        case is UInt16.Type: UInt16(exactly: v) as? T
        case is UInt8.Type: UInt8(exactly: v) as? T
        default: nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let map) = value else {
            throw DocumentValueDecoder.mismatch([String: DocumentValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer(map: map, codingPath: codingPath, documentID: documentID))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw DocumentValueDecoder.mismatch([DocumentValue].self, value, codingPath)
        }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath, documentID: documentID)
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let map: [String: DocumentValue]
        let codingPath: [any CodingKey]
        let documentID: String?

        var allKeys: [Key] { map.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { map[key.stringValue] != nil }

        func value(for key: Key) throws -> DocumentValue {
            guard let value = map[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no field '\(key.stringValue)'"))
            }
            return value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try value(for: key) { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if T.self == DocumentID.self, let id = DocumentID(wrappedValue: documentID) as? T { return id }
            let value = try self.value(for: key)
            if case .null = value {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: codingPath + [key], debugDescription: "expected \(T.self), found null"))
            }
            return try DocumentValueDecoder.unbox(value, as: type, codingPath: codingPath + [key], documentID: nil)
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if T.self == DocumentID.self, let id = DocumentID(wrappedValue: documentID) as? T { return id }
            guard let value = map[key.stringValue] else { return nil }
            if case .null = value { return nil }
            return try DocumentValueDecoder.unbox(value, as: type, codingPath: codingPath + [key], documentID: nil)
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try DocumentValueDecoder(value: try value(for: key), codingPath: codingPath + [key], documentID: nil)
                .container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try DocumentValueDecoder(value: try value(for: key), codingPath: codingPath + [key], documentID: nil)
                .unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            DocumentValueDecoder(value: map["super"] ?? .null, codingPath: codingPath, documentID: nil)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            DocumentValueDecoder(value: map[key.stringValue] ?? .null, codingPath: codingPath + [key], documentID: nil)
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let items: [DocumentValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0
        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        init(items: [DocumentValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        mutating func next(_ type: Any.Type) throws -> DocumentValue {
            guard currentIndex < items.count else {
                throw DecodingError.valueNotFound(
                    type,
                    .init(
                        codingPath: codingPath + [IndexKeyPath(currentIndex)],
                        debugDescription: "the array has only \(items.count) elements"))
            }
            defer { currentIndex += 1 }
            return items[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard currentIndex < items.count, case .null = items[currentIndex] else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let path = codingPath + [IndexKeyPath(currentIndex)]
            let value = try next(type)
            if case .null = value {
                throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "found null"))
            }
            return try DocumentValueDecoder.unbox(value, as: type, codingPath: path, documentID: nil)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let path = codingPath + [IndexKeyPath(currentIndex)]
            return try DocumentValueDecoder(value: try next(type), codingPath: path, documentID: nil)
                .container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let path = codingPath + [IndexKeyPath(currentIndex)]
            return try DocumentValueDecoder(value: try next([DocumentValue].self), codingPath: path, documentID: nil)
                .unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let path = codingPath + [IndexKeyPath(currentIndex)]
            return DocumentValueDecoder(value: try next(Any.self), codingPath: path, documentID: nil)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let value: DocumentValue
        let codingPath: [any CodingKey]
        let documentID: String?

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if case .null = value, T.self != DocumentID.self {
                throw DecodingError.valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
            }
            return try DocumentValueDecoder.unbox(value, as: type, codingPath: codingPath, documentID: documentID)
        }
    }
}
