public import SuiteCore

/// What every `cache.*` event carries.
public struct CacheEventPayload: Codable, Sendable, Hashable {
    /// The entry's key.
    public var key: String
    /// The value's size in bytes (0 when unknown, as for a miss).
    public var bytes: Int
    /// The tier concerned: `memory`, `disk`, `protected`, or the engine's name.
    public var tier: String
    /// For `cache.error`, what went wrong; else empty.
    public var message: String

    /// Creates a payload.
    package init(key: String, bytes: Int, tier: String, message: String = "") {
        self.key = key
        self.bytes = bytes
        self.tier = tier
        self.message = message
    }
}

/// A lookup found a usable entry (fresh, or allowed stale by the policy). Name `cache.hit`, source `cache`.
public struct CacheHit: BusEvent {
    /// Always `cache.hit`.
    public var name: String { "cache.hit" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// A lookup found nothing usable. Name `cache.miss`, source `cache`.
public struct CacheMiss: BusEvent {
    /// Always `cache.miss`.
    public var name: String { "cache.miss" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// A lookup found an entry past its freshness: it is revalidated, refreshed, or served stale by the policy. Name `cache.stale`, source `cache`.
public struct CacheStale: BusEvent {
    /// Always `cache.stale`.
    public var name: String { "cache.stale" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// An entry was stored. Name `cache.store`, source `cache`.
public struct CacheStored: BusEvent {
    /// Always `cache.store`.
    public var name: String { "cache.store" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// An entry was evicted to keep a store within its limits. Name `cache.evict`, source `cache`.
public struct CacheEvicted: BusEvent {
    /// Always `cache.evict`.
    public var name: String { "cache.evict" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// A cache operation failed without failing its caller: a protected entry that did not decrypt (tampered, or another key), a store or plugin engine error treated as a miss. Name `cache.error`, source `cache`.
public struct CacheFailed: BusEvent {
    /// Always `cache.error`.
    public var name: String { "cache.error" }
    /// The entry and its size.
    public var payload: CacheEventPayload

    /// Creates the event.
    package init(payload: CacheEventPayload) { self.payload = payload }
}

/// Why entries were removed on request (not evicted): the ``DataCache`` call that removed them.
public enum CacheRemovalReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// ``DataCache/removeValue(forKey:sensitive:)``.
    case key
    /// ``DataCache/removeValues(withPrefix:sensitive:)``.
    case prefix
    /// ``DataCache/removeValues(taggedWith:)``.
    case tag
    /// ``DataCache/removeExpired()``.
    case expired
}

/// What a `cache.remove` event carries.
public struct CacheRemovalPayload: Codable, Sendable, Hashable {
    /// The removed entry's key.
    public var key: String
    /// The value's size in bytes (0 when unknown, as for a removal by key).
    public var bytes: Int
    /// The tier the entry was removed from: the cache's tier, or `protected`.
    public var tier: String
    /// The call that removed it.
    public var reason: CacheRemovalReason

    /// Creates a payload.
    package init(key: String, bytes: Int, tier: String, reason: CacheRemovalReason) {
        self.key = key
        self.bytes = bytes
        self.tier = tier
        self.reason = reason
    }
}

/// An entry was removed on request: by key, by prefix, by tag, or as expired (one event per removed key, published
/// after the removal). Name `cache.remove`, source `cache`.
public struct CacheRemoved: BusEvent {
    /// Always `cache.remove`.
    public var name: String { "cache.remove" }
    /// The removed entry and why.
    public var payload: CacheRemovalPayload

    /// Creates the event.
    package init(payload: CacheRemovalPayload) { self.payload = payload }
}

/// What a `cache.clear` event carries.
public struct CacheClearPayload: Codable, Sendable, Hashable {
    /// The tier emptied: the cache's tier, or `protected`.
    public var tier: String
    /// How many entries went.
    public var entries: Int

    /// Creates a payload.
    package init(tier: String, entries: Int) {
        self.tier = tier
        self.entries = entries
    }
}

/// Every entry of a tier was removed (``DataCache/removeAll()``): one event instead of one per key. Name
/// `cache.clear`, source `cache`.
public struct CacheCleared: BusEvent {
    /// Always `cache.clear`.
    public var name: String { "cache.clear" }
    /// The tier and how many entries went.
    public var payload: CacheClearPayload

    /// Creates the event.
    package init(payload: CacheClearPayload) { self.payload = payload }
}
