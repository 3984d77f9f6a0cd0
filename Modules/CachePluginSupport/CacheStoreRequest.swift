public import Cache

/// One call of a `CacheStore` requirement as it crosses the plugin ABI: the host encodes it, the plugin decodes it
/// and runs it on its store.
public enum CacheStoreRequest: Sendable, Hashable {
    /// `CacheStore/entry(forKey:now:)`.
    case get(key: String, now: Int64)
    /// `CacheStore/store(_:)`.
    case store(CacheEntry)
    /// `CacheStore/removeEntry(forKey:)`.
    case remove(key: String)
    /// `CacheStore/removeEntries(withPrefix:)`.
    case removePrefix(String)
    /// `CacheStore/removeEntries(taggedWith:)`.
    case removeTag(String)
    /// `CacheStore/removeExpired(now:)`.
    case removeExpired(now: Int64)
    /// `CacheStore/removeAll()`.
    case removeAll
    /// `CacheStore/summaries(after:limit:)`.
    case summaries(after: String?, limit: Int)
    /// `CacheStore/statistics()`.
    case statistics
    /// `CacheStore/close()`.
    case close

    /// The operation this request is sent as.
    public var operation: CacheStoreOperation {
        switch self {
        case .get: .get
        case .store: .store
        case .remove: .remove
        case .removePrefix: .removePrefix
        case .removeTag: .removeTag
        case .removeExpired: .removeExpired
        case .removeAll: .removeAll
        case .summaries: .summaries
        case .statistics: .statistics
        case .close: .close
        }
    }

    /// Runs the request on `store` and returns its outcome. Any error becomes a ``CacheStoreResponse/failure(_:)``
    /// (a `CacheError` keeps its code; another error becomes `.storage`), so the caller always gets a response.
    public func run(on store: some CacheStore) async -> CacheStoreResponse {
        do {
            switch self {
            case .get(let key, let now):
                return .entry(try await store.entry(forKey: key, now: now))
            case .store(let entry):
                return .stored(try await store.store(entry))
            case .remove(let key):
                return .removed(try await store.removeEntry(forKey: key))
            case .removePrefix(let prefix):
                return .count(try await store.removeEntries(withPrefix: prefix))
            case .removeTag(let tag):
                return .count(try await store.removeEntries(taggedWith: tag))
            case .removeExpired(let now):
                return .count(try await store.removeExpired(now: now))
            case .removeAll:
                return .count(try await store.removeAll())
            case .summaries(let after, let limit):
                return .summaries(try await store.summaries(after: after, limit: limit))
            case .statistics:
                return .statistics(try await store.statistics())
            case .close:
                try await store.close()
                return .done
            }
        } catch let error as CacheError {
            return .failure(error)
        } catch {
            return .failure(CacheError(.storage, "\(error)", underlying: error))
        }
    }
}

/// The outcome of a ``CacheStoreRequest``: a value of the shape its operation returns, or a failure.
public enum CacheStoreResponse: Sendable {
    /// `get`'s entry, `nil` for a miss.
    case entry(CacheEntry?)
    /// `store`'s outcome.
    case stored(CacheStoreOutcome)
    /// `remove`'s answer: whether there was an entry.
    case removed(Bool)
    /// How many entries `removePrefix`, `removeTag`, `removeExpired` and `removeAll` removed.
    case count(Int)
    /// `summaries`' page.
    case summaries([CacheEntrySummary])
    /// `statistics`' value.
    case statistics(CacheStoreStatistics)
    /// Success without a value: `close`.
    case done
    /// The store threw; the code, message and hint cross the boundary (the underlying error does not).
    case failure(CacheError)
}
