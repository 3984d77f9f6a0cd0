public import Foundation

/// A Firestore-style field value.
///
/// Values of different types order by type first, following Firestore's value ordering:
/// null < boolean < number (int and double compare numerically, NaN first) < timestamp < string < bytes
/// < reference < geo point < array < vector (the map `{"__type__": "__vector__", "value": [numbers]}`) < map.
public enum DocumentValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// Microseconds since 1970-01-01T00:00:00Z.
    case timestamp(Timestamp)
    case string(String)
    case bytes([UInt8])
    /// A document path such as `users/u1`.
    case reference(String)
    case geoPoint(GeoPoint)
    case array([DocumentValue])
    case map([String: DocumentValue])
}

/// A point in time with microsecond precision (Firestore keeps microseconds).
public struct Timestamp: Sendable, Hashable, Comparable, Codable {
    /// Microseconds since the Unix epoch.
    public var microseconds: Int64
    /// Creates a timestamp from microseconds since the Unix epoch.
    public init(microseconds: Int64) { self.microseconds = microseconds }
    /// Creates a timestamp from a `Date`, truncated to microseconds.
    public init(_ date: Date) { self.microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)) }
    /// The timestamp as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }
    /// Orders timestamps in time.
    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
}

/// A latitude/longitude pair.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Degrees north, within [-90, 90] for a storable point.
    public var latitude: Double
    /// Degrees east, within [-180, 180] for a storable point.
    public var longitude: Double
    /// Creates a point from latitude and longitude in degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A document's fields.
public typealias DocumentData = [String: DocumentValue]
