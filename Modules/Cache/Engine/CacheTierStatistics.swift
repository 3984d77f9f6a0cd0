/// The statistics of each tier of a ``TieredCacheStore``.
public struct CacheTierStatistics: Sendable, Hashable, Codable {
    /// The memory tier's.
    public var memory: CacheStoreStatistics
    /// The back store's (what ``TieredCacheStore/statistics()`` returns).
    public var back: CacheStoreStatistics

    /// Creates tier statistics.
    package init(memory: CacheStoreStatistics, back: CacheStoreStatistics) {
        self.memory = memory
        self.back = back
    }
}
