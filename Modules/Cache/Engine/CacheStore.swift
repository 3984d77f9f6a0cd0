import Foundation

/// The role of a cache's storage: keep entries by key within limits, hand them back, forget them on request.
///
/// Built-in stores: ``InMemoryCacheStore`` (LRU bounded by bytes and by count), ``SQLiteCacheStore`` (on disk, large
/// values as files beside the database), ``ProtectedCacheStore`` (AES-GCM over another store) and
/// ``TieredCacheStore`` (memory in front of another store). Plugin engines of the `cache` kind are stores too. Every
/// store passes the same contract suite (`CacheStoreContract.check(_:)`, in the `CacheStoreContract` test library).
///
/// The contract:
/// - ``entry(forKey:now:)`` returns what ``store(_:)`` last stored under the key, byte for byte, unless it was
///   removed, evicted, or is expired at `now` (then it is a miss, and the store may drop it). A hit counts as a use
///   for the store's eviction order.
/// - ``store(_:)`` replaces any entry under the key and keeps the store within its limits *before it returns*,
///   evicting least recently used entries first; it reports what it evicted. An entry larger than the whole limit
///   is refused with ``CacheError/Code/tooLarge``.
/// - Removals return how many entries went; removing what is not there is no error.
public protocol CacheStore: Sendable {
    /// The entry under `key`, or `nil` when there is none or it is expired at `now` (milliseconds since 1970).
    func entry(forKey key: String, now: Int64) async throws -> CacheEntry?
    /// Stores `entry`, replacing any under its key, and evicts as needed to stay within the store's limits.
    @discardableResult
    func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome
    /// Removes the entry under `key`; whether there was one.
    @discardableResult
    func removeEntry(forKey key: String) async throws -> Bool
    /// Removes every entry whose key starts with `prefix`; how many.
    @discardableResult
    func removeEntries(withPrefix prefix: String) async throws -> Int
    /// Removes every entry tagged `tag`; how many.
    @discardableResult
    func removeEntries(taggedWith tag: String) async throws -> Int
    /// Removes every entry expired at `now`; how many.
    @discardableResult
    func removeExpired(now: Int64) async throws -> Int
    /// Removes every entry; how many.
    @discardableResult
    func removeAll() async throws -> Int
    /// Entries' summaries in key order after `key` (exclusive), at most `limit`: for listings.
    func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary]
    /// How much the store holds and may hold.
    func statistics() async throws -> CacheStoreStatistics
    /// Finishes pending work and releases the store's resources; later calls fail. Calling it twice does nothing.
    func close() async throws
}

extension CacheStore {
    /// The entry under `key`, or `nil`, judged expired against the system clock.
    public func entry(forKey key: String) async throws -> CacheEntry? {
        try await entry(forKey: key, now: CacheEntry.time(Date()))
    }

    public func close() async throws {}
}

/// What a ``CacheStore/store(_:)`` did besides storing.
public struct CacheStoreOutcome: Sendable, Hashable {
    /// The entries evicted to make room (least recently used first), not counting the one replaced under the key.
    public var evicted: [CacheEntrySummary]

    /// Creates an outcome.
    @_spi(Engine) public init(evicted: [CacheEntrySummary] = []) { self.evicted = evicted }
}

/// An entry without its value: for listings, events and statistics.
public struct CacheEntrySummary: Sendable, Hashable, Codable {
    /// The entry's key.
    public var key: String
    /// The value's size in bytes.
    public var bytes: Int
    /// The entry's metadata.
    public var metadata: CacheMetadata

    /// Creates a summary.
    @_spi(Engine) public init(key: String, bytes: Int, metadata: CacheMetadata) {
        self.key = key
        self.bytes = bytes
        self.metadata = metadata
    }

    /// The summary of `entry`.
    @_spi(Engine) public init(_ entry: CacheEntry) {
        self.init(key: entry.key, bytes: entry.value.count, metadata: entry.metadata)
    }
}

/// How much a store holds, and its limits.
public struct CacheStoreStatistics: Sendable, Hashable, Codable {
    /// The store's mechanism, e.g. `memory`, `sqlite`, `redis`.
    public var engine: String
    /// Entries held.
    public var entries: Int
    /// Bytes held, as the store counts them against its limit (``CacheEntry/cost`` for the built-in stores).
    public var bytes: Int
    /// The byte limit; `nil`: none of the store's own.
    public var byteLimit: Int?
    /// The entry count limit; `nil`: none.
    public var countLimit: Int?

    /// Creates statistics.
    @_spi(Engine) public init(engine: String, entries: Int, bytes: Int, byteLimit: Int? = nil, countLimit: Int? = nil) {
        self.engine = engine
        self.entries = entries
        self.bytes = bytes
        self.byteLimit = byteLimit
        self.countLimit = countLimit
    }
}
