public import Foundation

/// One cached value with what the cache knows about it. Stores keep it as given and hand it back unchanged.
///
/// Times are whole milliseconds since 1970 (``CacheEntry/time(_:)`` converts a `Date`), so that every engine — SQLite,
/// a plugin, Redis — stores and compares them exactly.
public struct CacheEntry: Sendable, Hashable {
    /// The cache key, as built by ``CacheKey`` (or any string a caller chooses for plain data).
    public var key: String
    /// The value's bytes (for an HTTP response, its body).
    public var value: [UInt8]
    /// What the cache knows about the value.
    public var metadata: CacheMetadata

    /// Creates an entry.
    public init(key: String, value: [UInt8], metadata: CacheMetadata = CacheMetadata()) {
        self.key = key
        self.value = value
        self.metadata = metadata
    }

    /// The bytes an entry counts for against a store's byte limit: its key, value and metadata's text.
    public var cost: Int { key.utf8.count + value.count + metadata.cost }

    /// A `Date` as the milliseconds since 1970 that entries hold.
    public static func time(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// What the cache records beside a value: when it was stored, until when it may be served fresh and at all, its
/// tags, and for an HTTP response its status and headers.
public struct CacheMetadata: Sendable, Hashable, Codable {
    /// When the value was stored (milliseconds since 1970).
    public var storedAt: Int64
    /// Until when the value is fresh (served without asking the origin); `nil`: fresh until ``expiresAt``.
    public var freshUntil: Int64?
    /// When the entry must no longer be served at all: a store treats it as missing from then on and may drop it
    /// (milliseconds since 1970); `nil`: never, until evicted.
    public var expiresAt: Int64?
    /// Names to invalidate the entry by (``CacheStore/removeEntries(taggedWith:)``).
    public var tags: [String]
    /// The HTTP status of a cached response; `nil` for plain data.
    public var status: Int?
    /// The HTTP response headers of a cached response (names lower-cased, in the order received).
    public var headers: [CacheHeader]

    /// Creates metadata.
    public init(
        storedAt: Int64 = 0, freshUntil: Int64? = nil, expiresAt: Int64? = nil, tags: [String] = [],
        status: Int? = nil, headers: [CacheHeader] = []
    ) {
        self.storedAt = storedAt
        self.freshUntil = freshUntil
        self.expiresAt = expiresAt
        self.tags = tags
        self.status = status
        self.headers = headers
    }

    /// Whether the entry may still be served at `now` (milliseconds since 1970).
    public func isExpired(at now: Int64) -> Bool { expiresAt.map { now >= $0 } ?? false }

    /// The first header named `name` (any case), or `nil`.
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.name == name }?.value
    }

    var cost: Int {
        40 + tags.reduce(0) { $0 + $1.utf8.count } + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }
}

/// One HTTP header of a cached response.
public struct CacheHeader: Sendable, Hashable, Codable {
    /// The name, lower-cased.
    public var name: String
    /// The value, as received.
    public var value: String

    /// Creates a header; the name is lower-cased.
    public init(_ name: String, _ value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}
