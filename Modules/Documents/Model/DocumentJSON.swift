import Foundation
public import SuiteCore

/// Document values as JSON, for the edges (CLI, import/export, server).
///
/// Plain JSON values map to themselves (integers stay `.int`, fractions `.double`); the other types are tagged
/// one-member objects:
///
/// | value | JSON |
/// |---|---|
/// | timestamp | `{"$timestamp": "2024-05-01T12:30:00.250Z"}` (RFC 3339) |
/// | bytes | `{"$bytes": "AAEC"}` (base64) |
/// | reference | `{"$ref": "users/u1"}` |
/// | geo point | `{"$geo": [48.85, 2.35]}` (latitude, longitude) |
/// | NaN / ±infinity | `{"$double": "NaN"}`, `"Infinity"`, `"-Infinity"` |
/// | a map whose only key starts with `$` | `{"$map": {"$price": 3}}` |
///
/// Any other one-member object whose key starts with `$` is an error, so a typo in a tag never turns silently into
/// a map. A document's top-level object is always its fields (never a tag).
///
/// ```swift
/// let data = try DocumentJSON.data(parsing: #"{"name":"Ann","joined":{"$timestamp":"2024-05-01T12:30:00Z"}}"#)
/// DocumentJSON.json(from: data).jsonString
/// ```
public enum DocumentJSON {
    /// The tags ``value(from:)`` understands.
    public static let tags = ["$timestamp", "$bytes", "$ref", "$geo", "$double", "$map"]

    /// Converts a JSON value, interpreting tagged objects.
    ///
    /// Throws ``DocumentsError`` `.invalidValue` (with a hint) for an unknown `$` tag, bad base64, a bad RFC 3339
    /// timestamp, an invalid reference path or a malformed geo point; the message names the field.
    public static func value(from json: JSONValue) throws -> DocumentValue {
        do { return try convert(json) } catch let error as LocatedError { throw error.documentsError }
    }

    /// Converts a JSON object into a document's fields. Throws `.invalidValue` if `json` is not an object.
    public static func data(from json: JSONValue) throws -> DocumentData {
        guard case .object(let members) = json else {
            throw DocumentsError(
                .invalidValue, "a document must be a JSON object, not \(json.typeDescription)",
                hint: #"wrap the fields in braces, e.g. '{"name":"Ann","points":10}'"#)
        }
        do { return try convertMembers(members) } catch let error as LocatedError { throw error.documentsError }
    }

    /// Parses JSON text into a document's fields.
    ///
    /// Throws `.invalidValue` for malformed JSON (the message gives the offset), a non-object, or a bad tag.
    public static func data(parsing text: String) throws -> DocumentData {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch let error as SuiteError {
            throw DocumentsError(.invalidValue, error.message, hint: error.hint, underlying: error)
        }
        return try data(from: json)
    }

    /// Converts a value to JSON, tagging the types JSON lacks.
    public static func json(from value: DocumentValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d):
            if d.isFinite { return .double(d) }
            return .object(["$double": .string(d.isNaN ? "NaN" : (d > 0 ? "Infinity" : "-Infinity"))])
        case .string(let s): return .string(s)
        case .timestamp(let t): return .object(["$timestamp": .string(RFC3339.format(microseconds: t.microseconds))])
        case .bytes(let b): return .object(["$bytes": .string(Data(b).base64EncodedString())])
        case .reference(let path): return .object(["$ref": .string(path)])
        case .geoPoint(let g): return .object(["$geo": .array([.double(g.latitude), .double(g.longitude)])])
        case .array(let items): return .array(items.map { json(from: $0) })
        case .map(let map):
            let object = json(from: map)
            if map.count == 1, let key = map.keys.first, key.utf8.first == UInt8(ascii: "$") {
                return .object(["$map": object])
            }
            return object
        }
    }

    /// Converts a document's fields to a JSON object (top-level keys are never tags).
    public static func json(from data: DocumentData) -> JSONValue {
        var members = [String: JSONValue](minimumCapacity: data.count)
        for (key, value) in data { members[key] = json(from: value) }
        return .object(members)
    }

    // MARK: - Conversion

    /// An error with the location (field names and array indexes, outermost first) where it happened.
    struct LocatedError: Error {
        var location: [String]
        var message: String
        var hint: String

        var documentsError: DocumentsError {
            var field = ""
            for part in location {
                if part.utf8.first == UInt8(ascii: "[") {
                    field += part
                } else {
                    if !field.isEmpty { field += "." }
                    field += FieldPath.isSimple(part) ? part : "`\(part)`"
                }
            }
            let prefix = field.isEmpty ? "" : "field '\(field)': "
            return DocumentsError(.invalidValue, prefix + message, hint: hint)
        }
    }

    static func convert(_ json: JSONValue) throws -> DocumentValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array(let items):
            var values: [DocumentValue] = []
            values.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                do { values.append(try convert(item)) } catch var error as LocatedError {
                    error.location.insert("[\(i)]", at: 0)
                    throw error
                }
            }
            return .array(values)
        case .object(let members):
            if members.count == 1, let (key, inner) = members.first, key.utf8.first == UInt8(ascii: "$") {
                return try tagged(key, inner)
            }
            return .map(try convertMembers(members))
        }
    }

    static func convertMembers(_ members: [String: JSONValue]) throws -> [String: DocumentValue] {
        var map = [String: DocumentValue](minimumCapacity: members.count)
        for (key, member) in members {
            do { map[key] = try convert(member) } catch var error as LocatedError {
                error.location.insert(key, at: 0)
                throw error
            }
        }
        return map
    }

    /// The value of a tagged object (`{"$timestamp": "…"}`) with tag `tag` and value `inner`, checked.
    ///
    /// It stays one switch over ``tags``: each case is the whole check of one tag with its own messages, and
    /// together they read as the table of tags.
    static func tagged(_ tag: String, _ inner: JSONValue) throws -> DocumentValue {
        switch tag {
        case "$timestamp":
            guard case .string(let text) = inner else {
                throw LocatedError(
                    location: [], message: "$timestamp needs an RFC 3339 string, not \(inner.typeDescription)",
                    hint: #"write e.g. {"$timestamp":"2024-05-01T12:30:00Z"}"#)
            }
            guard let timestamp = RFC3339.parse(text).map(Timestamp.init(microseconds:)) else {
                throw LocatedError(
                    location: [], message: "'\(text)' is not an RFC 3339 timestamp",
                    hint: "use YYYY-MM-DDTHH:MM:SS[.ffffff] followed by Z or an offset such as +02:00, "
                        + "e.g. 2024-05-01T12:30:00Z (years 0001–9999)")
            }
            return .timestamp(timestamp)
        case "$bytes":
            guard case .string(let text) = inner, let data = Data(base64Encoded: text) else {
                throw LocatedError(
                    location: [], message: "$bytes needs a base64 string",
                    hint: #"encode the bytes in standard base64 with padding, e.g. {"$bytes":"AAEC"}"#)
            }
            return .bytes([UInt8](data))
        case "$ref":
            guard case .string(let text) = inner else {
                throw LocatedError(
                    location: [], message: "$ref needs a document path string, not \(inner.typeDescription)",
                    hint: #"write e.g. {"$ref":"users/u1"}"#)
            }
            do {
                return .reference(try DocumentPath(text).string)
            } catch let error as DocumentsError {
                throw LocatedError(location: [], message: "$ref: " + error.message, hint: error.hint ?? "")
            }
        case "$geo":
            guard case .array(let pair) = inner, pair.count == 2, let latitude = number(pair[0]),
                let longitude = number(pair[1])
            else {
                throw LocatedError(
                    location: [], message: "$geo needs [latitude, longitude]",
                    hint: #"write e.g. {"$geo":[48.8566,2.3522]}"#)
            }
            guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                throw LocatedError(
                    location: [], message: "$geo [\(latitude), \(longitude)] is out of range",
                    hint: "latitude must be within [-90, 90] and longitude within [-180, 180]")
            }
            return .geoPoint(GeoPoint(latitude: latitude, longitude: longitude))
        case "$double":
            switch inner {
            case .string("NaN"): return .double(.nan)
            case .string("Infinity"): return .double(.infinity)
            case .string("-Infinity"): return .double(-.infinity)
            case .int(let i): return .double(Double(i))
            case .double(let d): return .double(d)
            default:
                throw LocatedError(
                    location: [], message: "$double needs a number or \"NaN\", \"Infinity\", \"-Infinity\"",
                    hint: #"write e.g. {"$double":"NaN"}"#)
            }
        case "$map":
            guard case .object(let members) = inner else {
                throw LocatedError(
                    location: [], message: "$map needs an object, not \(inner.typeDescription)",
                    hint: #"write e.g. {"$map":{"$price":3}}"#)
            }
            return .map(try convertMembers(members))
        default:
            throw LocatedError(
                location: [], message: "unknown tag '\(tag)'",
                hint: "known tags are \(tags.joined(separator: ", ")); to store a map whose only key starts with "
                    + #"'$', wrap it: {"$map":{"\#(tag)":…}}"#)
        }
    }

    private static func number(_ json: JSONValue) -> Double? {
        switch json {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}
