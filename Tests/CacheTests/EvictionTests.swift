@_spi(Engine) import Cache
import CacheStoreContract
import Foundation
import SuiteTestSupport
import Testing

/// Eviction in the stores that evict themselves: limits after every write, and least-recently-used order.
@Suite("Eviction")
struct EvictionTests {
    /// Random stores, reads and removals against ``LRUModel``: after every operation the store holds exactly the
    /// model's entries and bytes, never more than its limits, and reports the same evictions.
    @Test(arguments: [StoreKind.memory, .sqlite])
    func randomisedWritesKeepTheLimitsAndTheModelsOrder(_ kind: StoreKind) async throws {
        let limits = CacheStoreContract.Limits(byteLimit: 40_000, countLimit: 30)
        let store = try await kind.make(limits)
        var model = LRUModel(byteLimit: limits.byteLimit, countLimit: 30)
        var random = SeededGenerator(seed: 11)
        let operations = kind == .memory ? 5_000 : 1_500
        for step in 0..<operations {
            let key = "k\(Int.random(in: 0..<60, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let size = Int.random(
                    in: 0...(Int.random(in: 0..<10, using: &random) == 0 ? 12_000 : 2_500), using: &random)
                let entry = CacheEntry(key: key, value: [UInt8](repeating: UInt8(step & 0xFF), count: size))
                let outcome = try await store.store(entry)
                let expected = model.store(key, cost: entry.cost)
                #expect(outcome.evicted.map(\.key) == expected, "step \(step): evictions")
            case 5..<9:
                let hit = try await store.entry(forKey: key, now: 0) != nil
                #expect(hit == model.get(key), "step \(step): get \(key)")
            default:
                let removed = try await store.removeEntry(forKey: key)
                #expect(removed == model.remove(key), "step \(step): remove \(key)")
            }
            let statistics = try await store.statistics()
            #expect(statistics.bytes <= limits.byteLimit && statistics.entries <= 30, "step \(step): over the limits")
            #expect(statistics.bytes == model.bytes && statistics.entries == model.order.count, "step \(step)")
        }
        let keys = try await store.summaries(after: nil, limit: 100).map(\.key)
        #expect(keys == model.order.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        try await store.close()
    }

    /// A read makes an entry the most recently used: the next eviction takes another.
    @Test(arguments: [StoreKind.memory, .sqlite])
    func aReadProtectsAnEntryFromEviction(_ kind: StoreKind) async throws {
        let store = try await kind.make(CacheStoreContract.Limits(byteLimit: 1 << 20, countLimit: 3))
        for key in ["a", "b", "c"] { try await store.store(CacheEntry(key: key, value: [1])) }
        #expect(try await store.entry(forKey: "a", now: 0) != nil)
        let outcome = try await store.store(CacheEntry(key: "d", value: [2]))
        #expect(outcome.evicted.map(\.key) == ["b"])
        #expect(try await store.entry(forKey: "a", now: 0) != nil)
        #expect(try await store.entry(forKey: "b", now: 0) == nil)
        // A replacement is a use too.
        try await store.store(CacheEntry(key: "c", value: [3]))
        #expect(try await store.store(CacheEntry(key: "e", value: [4])).evicted.map(\.key) == ["d"])
        try await store.close()
    }

    /// The byte limit alone: the oldest entries go until the new one fits, and an entry of exactly the limit fits.
    @Test(arguments: [StoreKind.memory, .sqlite])
    func theByteLimitEvictsOldestFirst(_ kind: StoreKind) async throws {
        let probe = CacheEntry(key: "x0", value: [UInt8](repeating: 0, count: 1_000))
        let store = try await kind.make(CacheStoreContract.Limits(byteLimit: 3 * probe.cost))
        for i in 0..<3 { try await store.store(CacheEntry(key: "x\(i)", value: probe.value)) }
        #expect(try await store.statistics().bytes == 3 * probe.cost)
        let big = CacheEntry(key: "y", value: [UInt8](repeating: 1, count: 3 * probe.cost - 1 - 40))
        #expect(big.cost == 3 * probe.cost)
        let outcome = try await store.store(big)
        #expect(outcome.evicted.map(\.key) == ["x0", "x1", "x2"])
        #expect(try await store.statistics().bytes == big.cost)
        try await store.close()
    }

    @Test func limitsOutOfRangeAreRefused() throws {
        #expect(throws: CacheError.self) { try InMemoryCacheStore(byteLimit: 0) }
        #expect(throws: CacheError.self) { try InMemoryCacheStore(byteLimit: 10, countLimit: 0) }
        let path = NSTemporaryDirectory() + "/never-\(UUID().uuidString).sqlite"
        for configuration in [
            SQLiteCacheStore.Configuration(byteLimit: -1), .init(countLimit: 0), .init(inlineLimit: -5),
        ] {
            do {
                _ = try SQLiteCacheStore(path: path, configuration: configuration)
                Issue.record("\(configuration) was accepted")
            } catch let error as CacheError {
                #expect(error.code == .invalidInput)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// The contract notices a store that breaks it (so a passing run means something).
    @Test func theContractCatchesAStoreIgnoringItsLimit() async throws {
        await withKnownIssue {
            try await CacheStoreContract.checkByteLimit { _ in try LimitlessStore() }
        }
    }
}

/// A broken store: says it has a byte limit but never evicts.
private final class LimitlessStore: CacheStore, Sendable {
    let inner: InMemoryCacheStore

    init() throws { inner = try InMemoryCacheStore(byteLimit: .max) }

    func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        try await inner.entry(forKey: key, now: now)
    }
    func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome { try await inner.store(entry) }
    func removeEntry(forKey key: String) async throws -> Bool { try await inner.removeEntry(forKey: key) }
    func removeEntries(withPrefix prefix: String) async throws -> Int {
        try await inner.removeEntries(withPrefix: prefix)
    }
    func removeEntries(taggedWith tag: String) async throws -> Int { try await inner.removeEntries(taggedWith: tag) }
    func removeExpired(now: Int64) async throws -> Int { try await inner.removeExpired(now: now) }
    func removeAll() async throws -> Int { try await inner.removeAll() }
    func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        try await inner.summaries(after: key, limit: limit)
    }
    func statistics() async throws -> CacheStoreStatistics {
        var statistics = try await inner.statistics()
        statistics.byteLimit = 48 << 10
        return statistics
    }
}
