public import Foundation
public import SuiteCore
import Synchronization

/// The cache an app calls: values by key with lifetimes and tags over any ``CacheStore`` (normally a memory tier in
/// front of a disk tier), secrets in a separate protected store, and hit, miss, store, evict, remove, clear and error
/// events on the bus. ``CachedHTTPClient`` keeps HTTP responses in one.
///
/// ```swift
/// let cache = DataCache(store: InMemoryCacheStore(byteLimit: 8 << 20), bus: bus)
/// try await cache.set(Array("hello".utf8), forKey: "greeting", lifetime: 3600, tags: ["home"])
/// let value = try await cache.data(forKey: "greeting")   // the bytes, until the hour is over
/// try await cache.removeValues(taggedWith: "home")
/// ```
///
/// Lookups never throw for a store's failure: a store error (a Redis connection lost, a protected entry that does not
/// decrypt) is a miss plus a `cache.error` event. Writes and removals throw ``CacheError``.
public final class DataCache: Sendable {
    /// The store of plain values.
    public let store: any CacheStore
    /// The store of sensitive values (``setSecret(_:named:)``), if any; values marked sensitive never go to ``store``.
    public let protectedStore: (any CacheStore)?
    /// The clock lifetimes and expiry are measured with.
    public let clock: any WallClock
    let publisher: EventPublisher?
    /// The tier named in events of ``store`` (``protectedStore``'s events name `protected`).
    let tier: String
    private let tally = Mutex(Counts())

    /// Lookups since this cache was created.
    public struct Counts: Sendable, Hashable, Codable {
        /// Lookups that found a usable entry.
        public var hits = 0
        /// Lookups that found nothing usable.
        public var misses = 0
        /// Entries stored.
        public var stores = 0
        /// Entries evicted.
        public var evictions = 0
        /// Failures reported as misses.
        public var errors = 0
        /// `hits / (hits + misses)`, or 0 before any lookup.
        public var hitRatio: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }
    }

    /// Creates a cache over `store` (and `protectedStore` for secrets), publishing on `bus` as source `cache` with
    /// `tier` naming the store in events.
    public init(
        store: any CacheStore, protectedStore: (any CacheStore)? = nil, clock: any WallClock = SystemWallClock(),
        bus: EventBus? = nil, tier: String = "disk"
    ) {
        self.store = store
        self.protectedStore = protectedStore
        self.clock = clock
        self.publisher = bus.map { $0.publisher(source: "cache") }
        self.tier = tier
        // A write-behind store evicts after `store` returned: count and publish those evictions when they happen.
        (store as? any CacheEvictionReporting)?.onEvictions { [weak self] evicted in self?.evicted(evicted) }
    }

    /// Counts `evicted` and publishes a `cache.evict` for each, naming `tier` (the cache's when `nil`).
    private func evicted(_ evicted: [CacheEntrySummary], tier: String? = nil) {
        guard !evicted.isEmpty else { return }
        tally.withLock { $0.evictions += evicted.count }
        for summary in evicted {
            publisher?.publish(
                CacheEvicted(
                    payload: CacheEventPayload(key: summary.key, bytes: summary.bytes, tier: tier ?? self.tier)))
        }
    }

    /// The counts since this cache was created.
    public var counts: Counts { tally.withLock { $0 } }

    /// The current time as entries hold it.
    public var now: Int64 { CacheEntry.time(clock.now) }

    // MARK: - Reading

    /// The entry under `key`, or `nil`; counted and published as a hit or a miss (`record: false` leaves that to the
    /// caller, as the HTTP client does once it knows whether the entry is fresh).
    /// With `sensitive`, the entry is looked up in the protected store only (none configured: a miss and a
    /// `cache.error`).
    public func entry(forKey key: String, record: Bool = true, sensitive: Bool = false) async -> CacheEntry? {
        let entry: CacheEntry?
        do {
            entry = try await (sensitive ? protected() : store).entry(forKey: key, now: now)
        } catch {
            report(error, key: key, tier: sensitive ? "protected" : nil)
            entry = nil
        }
        if record {
            if let entry { recordHit(entry) } else { recordMiss(key) }
        }
        return entry
    }

    /// The value under `key`, or `nil` when none is stored or it expired.
    public func data(forKey key: String) async -> [UInt8]? {
        await entry(forKey: key)?.value
    }

    /// The value under `key` decoded from JSON, or `nil`; a value that does not decode as `T` is a miss.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) async -> T? {
        guard let data = await data(forKey: key) else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(data))
    }

    // MARK: - Writing

    /// Stores `value` under `key` for `lifetime` seconds (`nil`: until evicted), with `tags`.
    public func set(_ value: [UInt8], forKey key: String, lifetime: TimeInterval? = nil, tags: [String] = [])
        async throws
    {
        let now = self.now
        if let lifetime, lifetime <= 0 {
            throw CacheError(
                .invalidInput, "a lifetime must be positive, not \(lifetime)",
                hint: "omit it to keep the value until evicted")
        }
        let expiry = lifetime.map { now + Int64(($0 * 1000).rounded()) }
        try await store(
            CacheEntry(key: key, value: value, metadata: CacheMetadata(storedAt: now, expiresAt: expiry, tags: tags)))
    }

    /// Stores `value` encoded as JSON.
    public func set<T: Encodable>(_ value: T, forKey key: String, lifetime: TimeInterval? = nil, tags: [String] = [])
        async throws
    {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw CacheError(.invalidInput, "the value for '\(key)' does not encode as JSON", underlying: error)
        }
        try await set([UInt8](data), forKey: key, lifetime: lifetime, tags: tags)
    }

    /// Stores `entry` as it is; publishes `cache.store` and a `cache.evict` per eviction. With `sensitive`, it goes to
    /// the protected store only, never to a plain tier (and its events name the tier `protected`).
    public func store(_ entry: CacheEntry, sensitive: Bool = false) async throws {
        let outcome = try await (sensitive ? protected() : store).store(entry)
        tally.withLock { $0.stores += 1 }
        let named = tier(sensitive: sensitive)
        publisher?.publish(
            CacheStored(payload: CacheEventPayload(key: entry.key, bytes: entry.value.count, tier: named)))
        evicted(outcome.evicted, tier: named)
    }

    // MARK: - Secrets

    /// Stores a sensitive value in the protected store only (encrypted at rest there).
    /// - Throws: ``CacheError/Code/key`` when this cache has no protected store.
    public func setSecret(_ value: [UInt8], named name: String) async throws {
        try await protected().store(
            CacheEntry(key: name, value: value, metadata: CacheMetadata(storedAt: now)))
    }

    /// The sensitive value named `name`, or `nil` (also when it does not decrypt: then a `cache.error` is published).
    public func secret(named name: String) async throws -> [UInt8]? {
        let store = try protected()
        do {
            return try await store.entry(forKey: name, now: now)?.value
        } catch {
            report(error, key: name, tier: "protected")
            return nil
        }
    }

    /// Removes the sensitive value named `name`; whether there was one.
    @discardableResult
    public func removeSecret(named name: String) async throws -> Bool {
        try await protected().removeEntry(forKey: name)
    }

    /// The tier events name for the plain store, or for the protected one.
    func tier(sensitive: Bool) -> String { sensitive ? "protected" : tier }

    func protected() throws -> any CacheStore {
        guard let protectedStore else {
            throw CacheError(
                .key, "this cache has no protected store for secrets",
                hint: "create the DataCache with a ProtectedCacheStore as protectedStore (suite configures one)")
        }
        return protectedStore
    }

    // MARK: - Events

    /// Counts and publishes a hit.
    func recordHit(_ entry: CacheEntry) {
        tally.withLock { $0.hits += 1 }
        publisher?.publish(CacheHit(payload: CacheEventPayload(key: entry.key, bytes: entry.value.count, tier: tier)))
    }

    /// Counts and publishes a miss.
    func recordMiss(_ key: String) {
        tally.withLock { $0.misses += 1 }
        publisher?.publish(CacheMiss(payload: CacheEventPayload(key: key, bytes: 0, tier: tier)))
    }

    /// Publishes a stale lookup (counted by the caller as a hit or a miss, by what it then serves).
    func recordStale(_ entry: CacheEntry) {
        publisher?.publish(CacheStale(payload: CacheEventPayload(key: entry.key, bytes: entry.value.count, tier: tier)))
    }

    /// Counts and publishes a failure that did not fail the caller.
    func report(_ error: any Error, key: String, tier: String? = nil) {
        tally.withLock { $0.errors += 1 }
        let message = (error as? any SuiteDescribedError)?.message ?? "\(error)"
        publisher?.publish(
            CacheFailed(payload: CacheEventPayload(key: key, bytes: 0, tier: tier ?? self.tier, message: message)))
    }

    /// A reporter for a ``ProtectedCacheStore``'s `onError`: publishes `cache.error` events of tier `protected` on
    /// `bus` (source `cache`), so that a tampered entry is seen, not only missed.
    public static func errorReporter(bus: EventBus) -> @Sendable (CacheError) -> Void {
        let publisher = bus.publisher(source: "cache")
        return { error in
            publisher.publish(
                CacheFailed(payload: CacheEventPayload(key: "", bytes: 0, tier: "protected", message: error.message)))
        }
    }
}
