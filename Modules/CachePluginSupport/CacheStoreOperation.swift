/// The operations of the `cache` engine kind: one per `CacheStore` requirement. The raw value is the operation name
/// passed to the C ABI's `call` (see README.md for each payload).
public enum CacheStoreOperation: String, Sendable, Hashable, CaseIterable {
    /// `CacheStore/entry(forKey:now:)`.
    case get
    /// `CacheStore/store(_:)`.
    case store
    /// `CacheStore/removeEntry(forKey:)`.
    case remove
    /// `CacheStore/removeEntries(withPrefix:)`.
    case removePrefix
    /// `CacheStore/removeEntries(taggedWith:)`.
    case removeTag
    /// `CacheStore/removeExpired(now:)`.
    case removeExpired
    /// `CacheStore/removeAll()`.
    case removeAll
    /// `CacheStore/summaries(after:limit:)`.
    case summaries
    /// `CacheStore/statistics()`.
    case statistics
    /// `CacheStore/close()`.
    case close
}
