import CacheStoreContract
import Crypto
import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@testable import Cache

/// Removals through a `DataCache` publish exactly what they removed: `cache.remove` per key, `cache.clear` per tier.
@Suite("DataCache removal events")
struct DataCacheRemovalTests {
    /// A cache over a fresh store of `kind` on a manual clock, and the removal events its bus carried.
    struct Fixture {
        /// Every event the bus carried, in order.
        final class Events: Sendable {
            let list = Mutex<[any BusEvent]>([])
        }

        let cache: DataCache
        let clock = ManualWallClock()
        let events = Events()
        let token: Subscription

        init(_ kind: StoreKind, protected: (any CacheStore)? = nil) async throws {
            let bus = EventBus()
            let store = try await kind.make(CacheStoreContract.Limits(byteLimit: 64 << 20))
            cache = DataCache(store: store, protectedStore: protected, clock: clock, bus: bus, tier: "disk")
            token = bus.subscribeAll { [events] event in events.list.withLock { $0.append(event) } }
        }

        /// The `cache.remove` events since the last call, sorted by key.
        func removals() -> [CacheRemovalPayload] {
            take().compactMap { ($0 as? CacheRemoved)?.payload }.sorted { $0.key < $1.key }
        }

        /// The events since the last call.
        func take() -> [any BusEvent] {
            events.list.withLock { events in
                defer { events = [] }
                return events
            }
        }

        func set(_ key: String, _ bytes: Int, lifetime: TimeInterval? = nil, tags: [String] = []) async throws {
            try await cache.set([UInt8](repeating: 7, count: bytes), forKey: key, lifetime: lifetime, tags: tags)
        }
    }

    static let kinds: [StoreKind] = [.memory, .sqlite, .sqliteWriteBehind, .tiered, .protected]

    @Test(
        "by prefix, tag, expiry and key: one cache.remove per removed key; removeAll: one cache.clear", arguments: kinds
    )
    func removalsPublishTheRemovedKeys(_ kind: StoreKind) async throws {
        let fixture = try await Fixture(kind)
        defer { fixture.token.cancel() }
        let cache = fixture.cache
        // "a/" itself is under the prefix; "a", "a.", "a0" and "b/1" sort around it and are not.
        for (key, bytes) in [("a", 1), ("a.", 2), ("a/", 3), ("a/1", 10), ("a/2", 20), ("a0", 4), ("b/1", 5)] {
            try await fixture.set(key, bytes, tags: key == "a/2" || key == "b/1" ? ["x"] : [])
        }
        try await fixture.set("c", 6, tags: ["x", "y"])
        try await fixture.set("e1", 7, lifetime: 1)
        try await fixture.set("e2", 8, lifetime: 1_000)
        _ = fixture.take()

        #expect(try await cache.removeValues(withPrefix: "a/") == 3)
        #expect(
            fixture.removals()
                == [
                    CacheRemovalPayload(key: "a/", bytes: 3, tier: "disk", reason: .prefix),
                    CacheRemovalPayload(key: "a/1", bytes: 10, tier: "disk", reason: .prefix),
                    CacheRemovalPayload(key: "a/2", bytes: 20, tier: "disk", reason: .prefix),
                ])

        #expect(try await cache.removeValues(taggedWith: "x") == 2)
        #expect(fixture.removals().map(\.key) == ["b/1", "c"])
        #expect(try await cache.removeValues(taggedWith: "x") == 0)
        #expect(fixture.removals().isEmpty)

        fixture.clock.advance(by: 2)
        #expect(try await cache.removeExpired() == 1)
        #expect(fixture.removals() == [CacheRemovalPayload(key: "e1", bytes: 7, tier: "disk", reason: .expired)])

        #expect(try await cache.removeValue(forKey: "a0"))
        #expect(!(try await cache.removeValue(forKey: "a0")))
        #expect(fixture.removals() == [CacheRemovalPayload(key: "a0", bytes: 0, tier: "disk", reason: .key)])

        #expect(try await cache.removeAll() == 3)  // a, a., e2
        let cleared = fixture.take()
        #expect(cleared.count == 1)
        #expect((cleared.first as? CacheCleared)?.payload == CacheClearPayload(tier: "disk", entries: 3))
        #expect(try await cache.store.summaries(after: nil, limit: 10).isEmpty)
    }

    @Test("a prefix removal larger than a listing page publishes every removed key, and only those")
    func prefixRemovalPagesThroughTheKeys() async throws {
        let fixture = try await Fixture(.sqliteWriteBehind)
        defer { fixture.token.cancel() }
        let count = DataCache.removalPageSize + 100
        let keys = (0..<count).map { "p/\($0)" }
        for key in keys + ["o", "p", "p.", "q"] { try await fixture.set(key, 1) }
        _ = fixture.take()
        #expect(try await fixture.cache.removeValues(withPrefix: "p/") == count)
        let removed = fixture.removals().map(\.key)
        #expect(removed.count == count && Set(removed) == Set(keys))
        #expect(try await fixture.cache.store.summaries(after: nil, limit: 10).map(\.key) == ["o", "p", "p.", "q"])
    }

    @Test("sensitive entries are stored and removed with tier protected; an empty prefix clears the tier")
    func sensitiveRemovalsNameTheProtectedTier() async throws {
        let protected = try ProtectedCacheStore(
            base: try InMemoryCacheStore(byteLimit: 1 << 20),
            keyProvider: SymmetricKeyProvider(SymmetricKey(size: .bits256)))
        let fixture = try await Fixture(.memory, protected: protected)
        defer { fixture.token.cancel() }
        for key in ["s/1", "s/2", "t"] {
            try await fixture.cache.store(
                CacheEntry(key: key, value: [1, 2], metadata: CacheMetadata(storedAt: 0)), sensitive: true)
        }
        #expect(
            fixture.take().compactMap { ($0 as? CacheStored)?.payload.tier } == ["protected", "protected", "protected"])
        #expect(try await fixture.cache.removeValues(withPrefix: "s/", sensitive: true) == 2)
        #expect(fixture.removals().map { "\($0.tier) \($0.key)" } == ["protected s/1", "protected s/2"])
        #expect(try await fixture.cache.removeValue(forKey: "t", sensitive: true))
        #expect(fixture.removals().map { "\($0.tier) \($0.key)" } == ["protected t"])
        try await fixture.cache.store(
            CacheEntry(key: "u", value: [1], metadata: CacheMetadata(storedAt: 0)), sensitive: true)
        _ = fixture.take()
        #expect(try await fixture.cache.removeValues(withPrefix: "", sensitive: true) == 1)
        #expect(fixture.take().compactMap { ($0 as? CacheCleared)?.payload } == [.init(tier: "protected", entries: 1)])
    }

    @Test("cache.remove and cache.clear carry the fields docs/events.md lists")
    func removalEventsMatchTheCatalog() async throws {
        let catalog = try EventCatalog.load()
        let fixture = try await Fixture(.memory)
        defer { fixture.token.cancel() }
        try await fixture.set("k", 1)
        try await fixture.cache.removeValue(forKey: "k")
        try await fixture.cache.removeAll()
        let events = fixture.take().filter { $0.name == "cache.remove" || $0.name == "cache.clear" }
        #expect(events.map(\.name) == ["cache.remove", "cache.clear"])
        for event in events {
            let data = try JSONEncoder().encode(event.payload)
            let fields = (try JSONSerialization.jsonObject(with: data) as? [String: Any]).map { Set($0.keys) }
            #expect(catalog[event.name] == fields, "\(event.name) carries \(fields ?? [])")
        }
    }
}
