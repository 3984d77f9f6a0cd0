@_spi(Engine) import Cache
import Foundation
import Testing

/// Checks of the `CacheStore` contract (CacheStore.swift's doc comment) written before the shared suite
/// (`CacheStoreContract`, run by CacheStoreContractTests.swift) was merged; kept for what it does not cover and a
/// plugin engine must get right: a prefix with glob characters taken literally, a 1 MiB value, 100 concurrent calls,
/// tags dropped on replacement. Each check gets a new, empty store.
struct CacheStoreCheck: Sendable, CustomTestStringConvertible {
    var name: String
    var run: @Sendable (any CacheStore) async throws -> Void

    var testDescription: String { name }

    /// Runs every check on a new store from `make`, recording failures under the check's name.
    static func runAll(_ make: @Sendable () async throws -> any CacheStore) async throws {
        for check in all {
            let store = try await make()
            do {
                try await check.run(store)
            } catch {
                Issue.record("check '\(check.name)' threw \(error)")
            }
            try await store.close()
        }
    }

    /// An hour from now by the wall clock: an expiry no store drops during a test.
    static var later: Int64 { CacheEntry.time(Date()) + 3_600_000 }

    static func entry(_ key: String, _ value: [UInt8] = [1, 2, 3], tags: [String] = []) -> CacheEntry {
        CacheEntry(key: key, value: value, metadata: CacheMetadata(storedAt: 1_000, tags: tags))
    }

    static let all: [CacheStoreCheck] = [
        CacheStoreCheck(name: "an unknown key is a miss") { (store: any CacheStore) async throws in
            #expect(try await store.entry(forKey: "nothing here", now: 0) == nil)
        },
        CacheStoreCheck(name: "an entry comes back byte for byte, with all its metadata") {
            (store: any CacheStore) async throws in
            let metadata = CacheMetadata(
                storedAt: 1_700_000_000_123, freshUntil: 1_700_000_060_000, expiresAt: later, tags: ["a", "b c"],
                status: 200, headers: [CacheHeader("ETag", "\"x\""), CacheHeader("cache-control", "max-age=60")])
            let entry = CacheEntry(key: "users/ü/1 ✓", value: Array(0...255), metadata: metadata)
            try await store.store(entry)
            #expect(try await store.entry(forKey: entry.key, now: 0) == entry)
        },
        CacheStoreCheck(name: "empty and large values") { (store: any CacheStore) async throws in
            let empty = entry("empty", [])
            let large = entry("large", (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await store.store(empty)
            try await store.store(large)
            #expect(try await store.entry(forKey: "empty", now: 0) == empty)
            #expect(try await store.entry(forKey: "large", now: 0) == large)
        },
        CacheStoreCheck(name: "storing replaces the entry and its tags") { (store: any CacheStore) async throws in
            try await store.store(entry("k", [1], tags: ["old"]))
            let replacement = entry("k", [2], tags: ["new"])
            try await store.store(replacement)
            #expect(try await store.entry(forKey: "k", now: 0) == replacement)
            #expect(try await store.removeEntries(taggedWith: "old") == 0)
            #expect(try await store.entry(forKey: "k", now: 0) == replacement)
            #expect(try await store.removeEntries(taggedWith: "new") == 1)
            #expect(try await store.entry(forKey: "k", now: 0) == nil)
        },
        CacheStoreCheck(name: "an entry is a miss from its expiry on, judged at the caller's now") {
            (store: any CacheStore) async throws in
            var expiring = entry("expiring")
            expiring.metadata.expiresAt = 2_000
            try await store.store(expiring)
            #expect(try await store.entry(forKey: "expiring", now: 1_999) == expiring)
            #expect(try await store.entry(forKey: "expiring", now: 2_000) == nil)
            _ = try await store.removeExpired(now: 2_000)
            #expect(try await store.entry(forKey: "expiring", now: 2_000) == nil)
        },
        CacheStoreCheck(name: "removing a key says whether there was an entry") {
            (store: any CacheStore) async throws in
            try await store.store(entry("gone"))
            #expect(try await store.removeEntry(forKey: "gone"))
            #expect(try await !store.removeEntry(forKey: "gone"))
            #expect(try await store.entry(forKey: "gone", now: 0) == nil)
        },
        CacheStoreCheck(name: "removing by prefix takes the prefix literally") { (store: any CacheStore) async throws in
            for key in ["img/1", "img/2", "img*/3", "imgs/4", "doc/1"] { try await store.store(entry(key)) }
            #expect(try await store.removeEntries(withPrefix: "img/") == 2)
            #expect(try await store.removeEntries(withPrefix: "img*") == 1)
            #expect(try await store.removeEntries(withPrefix: "nothing") == 0)
            #expect(try await store.entry(forKey: "imgs/4", now: 0) != nil)
            #expect(try await store.entry(forKey: "doc/1", now: 0) != nil)
            #expect(try await store.entry(forKey: "img/1", now: 0) == nil)
        },
        CacheStoreCheck(name: "removing by tag removes exactly the entries tagged so") {
            (store: any CacheStore) async throws in
            try await store.store(entry("a", tags: ["x"]))
            try await store.store(entry("b", tags: ["x", "y"]))
            try await store.store(entry("c", tags: ["y"]))
            try await store.store(entry("d"))
            #expect(try await store.removeEntries(taggedWith: "x") == 2)
            #expect(try await store.removeEntries(taggedWith: "y") == 1)
            #expect(try await store.removeEntries(taggedWith: "none") == 0)
            #expect(try await store.entry(forKey: "d", now: 0) != nil)
            #expect(try await store.entry(forKey: "c", now: 0) == nil)
        },
        CacheStoreCheck(name: "removing everything counts the entries") { (store: any CacheStore) async throws in
            for key in ["1", "2", "3"] { try await store.store(entry(key, tags: ["t"])) }
            #expect(try await store.removeAll() == 3)
            #expect(try await store.entry(forKey: "2", now: 0) == nil)
            #expect(try await store.statistics().entries == 0)
            #expect(try await store.removeAll() == 0)
        },
        CacheStoreCheck(name: "summaries page through the keys in order") { (store: any CacheStore) async throws in
            for key in ["k05", "k01", "k03", "k02", "k04"] { try await store.store(entry(key, [0, 1])) }
            let first = try await store.summaries(after: nil, limit: 2)
            #expect(first.map(\.key) == ["k01", "k02"])
            #expect(first.first == CacheEntrySummary(entry("k01", [0, 1])))
            #expect(try await store.summaries(after: "k02", limit: 10).map(\.key) == ["k03", "k04", "k05"])
            #expect(try await store.summaries(after: "k05", limit: 10).isEmpty)
        },
        CacheStoreCheck(name: "statistics count the entries and their bytes") { (store: any CacheStore) async throws in
            try await store.store(entry("s1", Array(repeating: 7, count: 100)))
            try await store.store(entry("s2", Array(repeating: 7, count: 50)))
            let statistics = try await store.statistics()
            #expect(statistics.entries == 2)
            #expect(statistics.bytes >= 150)
        },
        CacheStoreCheck(name: "concurrent stores and lookups all answer correctly") {
            (store: any CacheStore) async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<100 {
                    group.addTask {
                        let value = [UInt8(i), UInt8(i / 2)]
                        try await store.store(entry("c\(i)", value))
                        #expect(try await store.entry(forKey: "c\(i)", now: 0)?.value == value)
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.statistics().entries == 100)
        },
    ]
}
