/// Marks the property of a `Codable` type that holds the document's id.
///
/// ``DocumentDecoder`` fills it from the document's path; ``DocumentEncoder`` never stores it as a field.
/// ```swift
/// struct User: Codable {
///     @DocumentID var id: String?
///     var name: String
/// }
/// let user = try DocumentDecoder().decode(User.self, from: data, path: try DocumentPath("users/u1"))
/// user.id   // "u1"
/// ```
/// With other coders (e.g. `JSONEncoder`) it encodes as an optional string, and decodes as `nil` when absent.
@propertyWrapper
public struct DocumentID: Codable, Sendable, Hashable {
    /// The document's id, or `nil` for a value not read from the store.
    public var wrappedValue: String?

    /// Creates the wrapper with an id (usually `nil`; the decoder fills it).
    public init(wrappedValue: String?) { self.wrappedValue = wrappedValue }

    /// Decodes an optional string (used by coders other than ``DocumentDecoder``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(String.self)
    }

    /// Encodes the id as an optional string (used by coders other than ``DocumentEncoder``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a ``DocumentID`` property, treating a missing key as `nil` (``DocumentDecoder`` supplies the id).
    public func decode(_ type: DocumentID.Type, forKey key: Key) throws -> DocumentID {
        try decodeIfPresent(type, forKey: key) ?? DocumentID(wrappedValue: nil)
    }
}
