import Foundation
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Cache

@Suite("Tiered cache store")
struct TieredCacheStoreTests {
    func make(memoryLimit: Int = 1 << 20, backLimit: Int = 4 << 20) throws -> TieredCacheStore {
        let directory = try TestSupport.makeTemporaryDirectory("tiered-cache")
        return TieredCacheStore(
            memory: try InMemoryCacheStore(byteLimit: memoryLimit),
            back: try SQLiteCacheStore(
                path: directory.path + "/cache.sqlite", configuration: .init(byteLimit: backLimit)))
    }

    @Test func aBackHitIsPromoted() async throws {
        let store = try make()
        let entry = CacheEntry(key: "k", value: [1, 2])
        try await store.back.store(entry)
        #expect(try await store.tierStatistics().memory.entries == 0)
        #expect(try await store.entry(forKey: "k", now: 0) == entry)
        #expect(store.memory.entryNow(forKey: "k", now: 0) == entry)
        try await store.close()
    }

    @Test func writesAndRemovalsReachBothTiers() async throws {
        let store = try make()
        try await store.store(CacheEntry(key: "a/1", value: [1], metadata: CacheMetadata(tags: ["t"])))
        try await store.store(CacheEntry(key: "a/2", value: [2]))
        try await store.store(CacheEntry(key: "b", value: [3], metadata: CacheMetadata(expiresAt: 50)))
        var tiers = try await store.tierStatistics()
        #expect(tiers.memory.entries == 3 && tiers.back.entries == 3)
        #expect(try await store.statistics() == tiers.back)
        #expect(try await store.removeEntries(taggedWith: "t") == 1)
        #expect(try await store.removeExpired(now: 50) == 1)
        tiers = try await store.tierStatistics()
        #expect(tiers.memory.entries == 1 && tiers.back.entries == 1)
        #expect(try await store.removeEntries(withPrefix: "a/") == 1)
        tiers = try await store.tierStatistics()
        #expect(tiers.memory.entries == 0 && tiers.back.entries == 0)
        try await store.close()
    }

    @Test func anEntryTooLargeForMemoryLivesInTheBackOnly() async throws {
        let store = try make(memoryLimit: 1_000)
        try await store.store(CacheEntry(key: "big", value: [1]))
        let big = CacheEntry(key: "big", value: [UInt8](repeating: 7, count: 5_000))
        try await store.store(big)
        #expect(store.memory.entryNow(forKey: "big", now: 0) == nil, "the older small value left memory")
        #expect(try await store.entry(forKey: "big", now: 0) == big)
        try await store.close()
    }

    @Test func whatTheBackEvictsLeavesMemory() async throws {
        let entry = CacheEntry(key: "e0", value: [UInt8](repeating: 0, count: 900))
        let store = try make(backLimit: 2 * entry.cost)
        for i in 0..<3 { try await store.store(CacheEntry(key: "e\(i)", value: entry.value)) }
        #expect(store.memory.entryNow(forKey: "e0", now: 0) == nil)
        #expect(try await store.entry(forKey: "e0", now: 0) == nil)
        #expect(try await store.tierStatistics().memory.entries == 2)
        try await store.close()
    }
}
