import Cache
import CacheStoreContract
import Crypto
import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

/// Sixty-four clients at once on a small key space, under a tiny byte limit: while they store, read and remove, four
/// samplers read the store's byte count as often as they get to run. At every sample every tier is within its limit;
/// no read ever returns a value stored under another key (each value spells its key and is padded with a byte derived
/// from it); and once the clients are done, a tiered store's memory tier holds nothing its back store does not.
///
/// A run is 50 operations per client, a few seconds in all; `SUITE_CACHE_STRESS_SECONDS=60` runs each case for that
/// long instead (Tools/faults/load/README.md).
@Suite("The cache under 64 concurrent clients and a tiny byte limit")
struct CacheConcurrentLimitTests {
    static let clients = 64
    static let keyCount = 48
    static let byteLimit = 6_000

    /// Every built-in store (memory, SQLite with and without write-behind, protected over SQLite, tiered) as
    /// `StoreKind.make` builds it: an inline limit of 1 KiB so that the larger values are files, a memory tier of a
    /// quarter of the limit in front of the tiered ones.
    @Test(arguments: StoreKind.allCases)
    func theLimitHoldsAndNoValueComesBackForAnotherKey(_ kind: StoreKind) async throws {
        let store = try await kind.make(CacheStoreContract.Limits(byteLimit: Self.byteLimit))
        let run = StressRun(label: kind.rawValue)
        let client = StressClient(
            set: { key, value, tags in
                try await store.store(CacheEntry(key: key, value: value, metadata: CacheMetadata(tags: tags)))
            },
            get: { key in
                guard let entry = try await store.entry(forKey: key, now: 0) else { return nil }
                if entry.key != key { run.wrongKey(key, entry.key) }
                return entry.value
            },
            remove: { key in try await store.removeEntry(forKey: key) },
            removeTag: { tag in try await store.removeEntries(taggedWith: tag) })
        try await run.hammer(client) { try await Self.tiers(of: store) }
        if let tiered = store as? TieredCacheStore { try await Self.expectTiersAgree(tiered, run) }
        try await store.close()
        run.expectSound()
    }

    /// A `DataCache` as an app builds it: a memory tier in front of SQLite, secrets in a protected SQLite file of its
    /// own, events on a bus. The keys ending in 3 (a tenth of them) are secrets.
    @Test func aDataCacheOverEveryTierHoldsItsLimits() async throws {
        let directory = try TestSupport.makeTemporaryDirectory("cache-stress-datacache")
        let configuration = SQLiteCacheStore.Configuration(byteLimit: Self.byteLimit, inlineLimit: 1_024)
        let store = TieredCacheStore(
            memory: try InMemoryCacheStore(byteLimit: Self.byteLimit / 4),
            back: try SQLiteCacheStore(path: directory.path + "/cache.sqlite", configuration: configuration))
        let protected = try ProtectedCacheStore(
            base: try SQLiteCacheStore(path: directory.path + "/protected.sqlite", configuration: configuration),
            keyProvider: SymmetricKeyProvider(SymmetricKey(size: .bits256)),
            onError: { error in Issue.record("unexpected report: \(error)") })
        let cache = DataCache(store: store, protectedStore: protected, bus: EventBus())
        let run = StressRun(label: "data-cache")
        let client = StressClient(
            set: { key, value, tags in
                if key.hasSuffix("3") {
                    try await cache.setSecret(value, named: key)
                } else {
                    try await cache.set(value, forKey: key, tags: tags)
                }
            },
            get: { key in
                if key.hasSuffix("3") { return try await cache.secret(named: key) }
                return await cache.data(forKey: key)
            },
            remove: { key in
                if key.hasSuffix("3") { return try await cache.removeSecret(named: key) }
                return try await cache.removeValue(forKey: key)
            },
            removeTag: { tag in try await cache.removeValues(taggedWith: tag) })
        try await run.hammer(client) {
            try await Self.tiers(of: store) + [TierSample(name: "protected", try await protected.statistics())]
        }
        try await Self.expectTiersAgree(store, run)
        #expect(cache.counts.errors == 0)
        try await store.close()
        try await protected.close()
        run.expectSound()
    }

    /// Each tier's bytes and limit now: both tiers of a tiered store, otherwise the store's own.
    static func tiers(of store: any CacheStore) async throws -> [TierSample] {
        if let tiered = store as? TieredCacheStore {
            let tiers = try await tiered.tierStatistics()
            return [TierSample(name: "memory", tiers.memory), TierSample(name: "back", tiers.back)]
        }
        return [TierSample(name: "store", try await store.statistics())]
    }

    /// After the clients: whatever the memory tier holds is what the back store holds under the key (a write or a
    /// removal that raced another must not leave the older value in front).
    static func expectTiersAgree(_ store: TieredCacheStore, _ run: StressRun) async throws {
        for index in 0..<keyCount {
            let key = StressRun.key(index)
            guard let front = try await store.memory.entry(forKey: key, now: 0) else { continue }
            let back = try await store.back.entry(forKey: key, now: 0)
            let held = back.map { "as \($0.value.count) bytes" } ?? "not at all"
            #expect(
                back == front,
                "\(run.label): the memory tier holds \(key) as \(front.value.count) bytes, the back store \(held)")
        }
    }
}

/// What a client can do to the cache under test.
struct StressClient: Sendable {
    /// Stores a value under a key with tags.
    var set: @Sendable (String, [UInt8], [String]) async throws -> Void
    /// The value under a key, or `nil`.
    var get: @Sendable (String) async throws -> [UInt8]?
    /// Removes the value under a key.
    var remove: @Sendable (String) async throws -> Bool
    /// Removes the values with a tag.
    var removeTag: @Sendable (String) async throws -> Int
}

/// One tier's byte count at a sample, with its limit.
struct TierSample: Sendable {
    var name: String
    var bytes: Int
    var limit: Int?

    init(name: String, _ statistics: CacheStoreStatistics) {
        self.name = name
        bytes = statistics.bytes
        limit = statistics.byteLimit
    }
}

/// One stress run: the clients, the sampler and what they counted.
final class StressRun: Sendable {
    struct Counts: Sendable {
        var operations = 0
        var gets = 0
        var hits = 0
        var sets = 0
        var removals = 0
        var wrongValues: [String] = []
        var samples = 0
        var peak: [String: Int] = [:]
        var overLimit: [String] = []
    }

    let label: String
    let counts = Mutex(Counts())
    /// Set once the clients are done: the samplers stop.
    let done = Atomic<Bool>(false)

    init(label: String) { self.label = label }

    /// A client's operations in a default run (`SUITE_CACHE_STRESS_SECONDS` unset).
    static let operationsPerClient = 50

    /// The key of index `index`.
    static func key(_ index: Int) -> String { "k\(index)" }

    /// The byte every value of the key of index `index` is padded with.
    static func pad(_ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 37 &+ 11) }

    /// A value for the key of index `index`: `<key>|<client>.<sequence>|` then `size` pad bytes.
    static func value(_ index: Int, client: Int, sequence: Int, size: Int) -> [UInt8] {
        Array("\(key(index))|\(client).\(sequence)|".utf8) + [UInt8](repeating: pad(index), count: size)
    }

    /// Whether `value` was made for the key of index `index`.
    static func belongs(_ value: [UInt8], to index: Int) -> Bool {
        let parts = value.split(separator: UInt8(ascii: "|"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, String(decoding: parts[0], as: UTF8.self) == key(index) else { return false }
        return parts[2].allSatisfy { $0 == pad(index) }
    }

    /// How long a client works: `SUITE_CACHE_STRESS_SECONDS`, or a fixed number of operations when unset.
    static var stressSeconds: Double? {
        ProcessInfo.processInfo.environment["SUITE_CACHE_STRESS_SECONDS"].flatMap(Double.init).flatMap {
            $0 > 0 ? $0 : nil
        }
    }

    /// Runs 64 clients and four samplers until the clients are done; records what they saw.
    func hammer(_ client: StressClient, sample: @escaping @Sendable () async throws -> [TierSample]) async throws {
        let deadline = Self.stressSeconds.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Four samplers: they get the pool's threads about as often as a sixteenth of the clients do.
            for _ in 0..<4 {
                group.addTask {
                    while !self.done.load(ordering: .acquiring) {
                        self.record(try await sample())
                        await Task.yield()
                    }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { clients in
                for number in 0..<CacheConcurrentLimitTests.clients {
                    clients.addTask { try await self.work(client, number: number, deadline: deadline) }
                }
                try await clients.waitForAll()
            }
            self.done.store(true, ordering: .releasing)
            try await group.waitForAll()
        }
    }

    /// One client's operations: reads (45%), stores (40%), removals by key (14%) and by tag (1%).
    private func work(_ client: StressClient, number: Int, deadline: ContinuousClock.Instant?) async throws {
        var random = SplitMix64(seed: UInt64(number) &+ 1)
        var sequence = 0
        while deadline.map({ ContinuousClock.now < $0 }) ?? (sequence < Self.operationsPerClient) {
            sequence += 1
            let index = Int.random(in: 0..<CacheConcurrentLimitTests.keyCount, using: &random)
            let key = Self.key(index)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<45:
                let value = try await client.get(key)
                let wrong = value.map { !Self.belongs($0, to: index) } ?? false
                counts.withLock { counts in
                    counts.gets += 1
                    if value != nil { counts.hits += 1 }
                    if wrong {
                        counts.wrongValues.append(
                            "\(key) → \(String(decoding: value?.prefix(24) ?? [], as: UTF8.self))")
                    }
                }
            case 45..<85:
                // Mostly small; one in ten larger than the SQLite inline limit (a file) and the memory tier.
                let large = Int.random(in: 0..<10, using: &random) == 0
                let size = Int.random(in: large ? 1_100...1_450 : 0...400, using: &random)
                let value = Self.value(index, client: number, sequence: sequence, size: size)
                try await client.set(key, value, ["t\(index % 4)"])
                counts.withLock { $0.sets += 1 }
            case 85..<99:
                _ = try await client.remove(key)
                counts.withLock { $0.removals += 1 }
            default:
                _ = try await client.removeTag("t\(index % 4)")
                counts.withLock { $0.removals += 1 }
            }
            counts.withLock { $0.operations += 1 }
            await Task.yield()
        }
    }

    /// Adds a sample: each tier's peak, and any tier over its limit.
    private func record(_ tiers: [TierSample]) {
        counts.withLock { counts in
            counts.samples += 1
            for tier in tiers {
                counts.peak[tier.name] = max(counts.peak[tier.name] ?? 0, tier.bytes)
                if let limit = tier.limit, tier.bytes > limit {
                    counts.overLimit.append("\(tier.name): \(tier.bytes) > \(limit) at sample \(counts.samples)")
                }
                if tier.limit == nil { counts.overLimit.append("\(tier.name) reports no byte limit") }
            }
        }
    }

    /// Records a read that returned the entry of another key.
    func wrongKey(_ asked: String, _ got: String) {
        counts.withLock { $0.wrongValues.append("\(asked) → the entry of \(got)") }
    }

    /// Every tier within its limit at every sample, no wrong value, and enough happened for that to mean something:
    /// many samples, reads that hit, every kind of operation. Prints the figures.
    func expectSound() {
        let counts = counts.withLock { $0 }
        let peaks = counts.peak.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print(
            "cache stress \(label): \(counts.operations) operations (\(counts.gets) reads, \(counts.hits) hits, "
                + "\(counts.sets) stores, \(counts.removals) removals), \(counts.samples) samples, peak bytes "
                + "\(peaks) (limit \(CacheConcurrentLimitTests.byteLimit), memory tier a quarter of it)")
        #expect(counts.overLimit.isEmpty, "\(label): over the limit: \(counts.overLimit.prefix(5))")
        #expect(counts.wrongValues.isEmpty, "\(label): values of another key: \(counts.wrongValues.prefix(5))")
        #expect(counts.samples >= 50, "\(label): the samplers ran \(counts.samples) times")
        #expect(counts.hits >= counts.gets / 20 && counts.hits > 0, "\(label): \(counts.hits) of \(counts.gets) hit")
        #expect(counts.sets > 0 && counts.removals > 0)
        #expect(counts.peak.values.allSatisfy { $0 > 0 }, "\(label): a tier never held anything: \(peaks)")
    }
}
