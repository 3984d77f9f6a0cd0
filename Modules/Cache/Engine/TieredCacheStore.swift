import Synchronization

/// A ``CacheStore`` made of an ``InMemoryCacheStore`` in front of another store (normally a ``SQLiteCacheStore``).
///
/// ```swift
/// let store = TieredCacheStore(
///     memory: try InMemoryCacheStore(byteLimit: 32 << 20),
///     back: try SQLiteCacheStore(path: dataDirectory + "/cache.sqlite"))
/// ```
///
/// Reads try the memory tier, then the back store, copying a back hit into memory. Stores and removals go to the back
/// store first, then to memory (an entry too large for the memory tier lives in the back store only; entries the back
/// store evicts leave memory too). Listings and ``statistics()`` are the back store's, which holds every entry;
/// ``tierStatistics()`` gives both.
///
/// A read racing a write never leaves the older value in memory: a back hit is copied into memory only when no write
/// or removal went through the tiered store since the read began.
public final class TieredCacheStore: Sendable {
    /// The front tier.
    public let memory: InMemoryCacheStore
    /// The back store, holding every entry.
    public let back: any CacheStore
    /// Counts writes and removals; a promotion checks it has not moved (and promotes under it).
    private let generation = Mutex<UInt64>(0)

    /// A store reading `memory` first and keeping everything in `back`.
    public init(memory: InMemoryCacheStore, back: any CacheStore) {
        self.memory = memory
        self.back = back
        // A write-behind back store evicts when it writes its staged entries: those leave memory too.
        (back as? any CacheEvictionReporting)?.onEvictions { [weak self] evicted in
            _ = self?.changeMemory { memory in
                for summary in evicted { memory.removeNow(forKey: summary.key) }
            }
        }
    }

    /// Each tier's statistics.
    public func tierStatistics() async throws -> CacheTierStatistics {
        CacheTierStatistics(memory: try await memory.statistics(), back: try await back.statistics())
    }

    /// Applies a change to the memory tier after the back store's, moving the generation.
    private func changeMemory<T>(_ change: (InMemoryCacheStore) -> T) -> T {
        generation.withLock { generation in
            generation &+= 1
            return change(memory)
        }
    }
}

@_spi(Engine) extension TieredCacheStore: CacheEvictionReporting {
    /// Adds `handler` to the back store's (when it reports evictions outside `store`; otherwise it never runs).
    @_spi(Engine) public func onEvictions(_ handler: @escaping @Sendable ([CacheEntrySummary]) -> Void) {
        (back as? any CacheEvictionReporting)?.onEvictions(handler)
    }
}

extension TieredCacheStore: CacheStore {
    public func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        if let hit = memory.entryNow(forKey: key, now: now) { return hit }
        let start = generation.withLock { $0 }
        guard let entry = try await back.entry(forKey: key, now: now) else { return nil }
        generation.withLock { generation in
            if generation == start { _ = try? memory.storeNow(entry) }
        }
        return entry
    }

    @discardableResult
    public func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        let outcome = try await back.store(entry)
        changeMemory { memory in
            for evicted in outcome.evicted { memory.removeNow(forKey: evicted.key) }
            // Too large for memory: the back store serves it; drop any older value from memory.
            if (try? memory.storeNow(entry)) == nil { memory.removeNow(forKey: entry.key) }
        }
        return outcome
    }

    @discardableResult
    public func removeEntry(forKey key: String) async throws -> Bool {
        let removed = try await back.removeEntry(forKey: key)
        _ = changeMemory { $0.removeNow(forKey: key) }
        return removed
    }

    @discardableResult
    public func removeEntries(withPrefix prefix: String) async throws -> Int {
        let removed = try await back.removeEntries(withPrefix: prefix)
        _ = changeMemory { $0.removeAll { $0.key.utf8.starts(with: prefix.utf8) } }
        return removed
    }

    @discardableResult
    public func removeEntries(taggedWith tag: String) async throws -> Int {
        let removed = try await back.removeEntries(taggedWith: tag)
        _ = changeMemory { $0.removeAll { $0.metadata.tags.contains(tag) } }
        return removed
    }

    @discardableResult
    public func removeExpired(now: Int64) async throws -> Int {
        let removed = try await back.removeExpired(now: now)
        _ = changeMemory { $0.removeAll { $0.metadata.isExpired(at: now) } }
        return removed
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        let removed = try await back.removeAll()
        _ = changeMemory { $0.removeAll { _ in true } }
        return removed
    }

    public func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        try await back.summaries(after: key, limit: limit)
    }

    public func statistics() async throws -> CacheStoreStatistics {
        try await back.statistics()
    }

    public func close() async throws {
        _ = changeMemory { $0.removeAll { _ in true } }
        try await back.close()
    }
}
