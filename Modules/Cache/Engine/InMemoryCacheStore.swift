import Synchronization

/// A ``CacheStore`` in the process's memory: least recently used entries go first once the store passes its byte
/// limit (the sum of ``CacheEntry/cost``) or its entry count limit.
///
/// ```swift
/// let store = try InMemoryCacheStore(byteLimit: 32 << 20)
/// try await store.store(CacheEntry(key: "greeting", value: Array("hello".utf8)))
/// let hit = try await store.entry(forKey: "greeting", now: 0)
/// ```
///
/// Every operation but the scans is O(1): a dictionary from key to an array slot, the slots threaded on an intrusive
/// doubly linked list in recency order, all behind one `Mutex`. A hit moves the entry to the front; an entry expired at
/// the reader's `now` is a miss and is dropped. Removal by prefix or tag and ``summaries(after:limit:)`` scan every
/// entry. Both limits hold whenever ``store(_:)`` returns: it evicts before returning.
public final class InMemoryCacheStore: Sendable {
    /// The most bytes (sum of ``CacheEntry/cost``) the store holds.
    public let byteLimit: Int
    /// The most entries the store holds; `nil`: no limit but ``byteLimit``.
    public let countLimit: Int?

    private let list = Mutex(LRUList())

    /// Creates an empty store holding at most `byteLimit` bytes (64 MiB by default) and `countLimit` entries.
    ///
    /// - Throws: ``CacheError`` `.invalidInput` when a limit is below 1.
    public init(byteLimit: Int = 64 << 20, countLimit: Int? = nil) throws {
        guard byteLimit > 0 else {
            throw CacheError(
                .invalidInput, "the memory store's byte limit must be positive, not \(byteLimit)",
                hint: "pass InMemoryCacheStore(byteLimit:) a number of bytes above 0, e.g. 64 << 20")
        }
        if let countLimit, countLimit < 1 {
            throw CacheError(
                .invalidInput, "the memory store's count limit must be at least 1, not \(countLimit)",
                hint: "pass countLimit: nil for no count limit")
        }
        self.byteLimit = byteLimit
        self.countLimit = countLimit
    }

    /// The entry under `key`, synchronously (``TieredCacheStore`` and tests).
    func entryNow(forKey key: String, now: Int64) -> CacheEntry? {
        list.withLock { $0.entry(forKey: key, now: now) }
    }

    /// Stores `entry` synchronously; what was evicted.
    func storeNow(_ entry: CacheEntry) throws -> [CacheEntrySummary] {
        let cost = entry.cost
        guard cost <= byteLimit else {
            throw CacheError(
                .tooLarge, "the entry '\(entry.key)' takes \(cost) bytes, more than the memory store's \(byteLimit)",
                hint: "raise InMemoryCacheStore(byteLimit:) or keep such values in the disk tier only")
        }
        let countLimit = countLimit ?? .max
        return list.withLock { list in
            list.insert(entry, cost: cost)
            var evicted: [CacheEntrySummary] = []
            while list.bytes > byteLimit || list.count > countLimit, let victim = list.removeLeastRecentlyUsed() {
                evicted.append(CacheEntrySummary(victim))
            }
            return evicted
        }
    }

    /// Removes the entry under `key` synchronously; whether there was one.
    @discardableResult
    func removeNow(forKey key: String) -> Bool {
        list.withLock { $0.remove(key: key) != nil }
    }

    /// Removes every entry `predicate` accepts; how many.
    func removeAll(where predicate: (CacheEntry) -> Bool) -> Int {
        list.withLock { list in
            let keys = list.keys(where: predicate)
            for key in keys { list.remove(key: key) }
            return keys.count
        }
    }

    /// Every entry, most recently used first (tests: the eviction order).
    func entriesByRecency() -> [CacheEntry] {
        list.withLock { $0.entries }
    }
}

extension InMemoryCacheStore: CacheStore {
    public func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        entryNow(forKey: key, now: now)
    }

    @discardableResult
    public func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        CacheStoreOutcome(evicted: try storeNow(entry))
    }

    @discardableResult
    public func removeEntry(forKey key: String) async throws -> Bool {
        removeNow(forKey: key)
    }

    @discardableResult
    public func removeEntries(withPrefix prefix: String) async throws -> Int {
        removeAll { $0.key.utf8.starts(with: prefix.utf8) }
    }

    @discardableResult
    public func removeEntries(taggedWith tag: String) async throws -> Int {
        removeAll { $0.metadata.tags.contains(tag) }
    }

    @discardableResult
    public func removeExpired(now: Int64) async throws -> Int {
        removeAll { $0.metadata.isExpired(at: now) }
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        list.withLock { $0.removeAll() }
    }

    public func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        guard limit > 0 else { return [] }
        let entries = list.withLock { $0.entries }
        var selected = entries
        if let key { selected = entries.filter { CacheKeyOrder.precedes(key, $0.key) } }
        selected.sort { CacheKeyOrder.precedes($0.key, $1.key) }
        return selected.prefix(limit).map(CacheEntrySummary.init)
    }

    public func statistics() async throws -> CacheStoreStatistics {
        let (entries, bytes) = list.withLock { ($0.count, $0.bytes) }
        return CacheStoreStatistics(
            engine: "memory", entries: entries, bytes: bytes, byteLimit: byteLimit, countLimit: countLimit)
    }
}
