@_spi(Engine) public import Cache
import Synchronization
import Testing

extension CacheStoreContract {
    /// Statistics count the entries held and some bytes for each, and fall to zero when emptied.
    public static func checkStatistics(_ make: Factory) async throws {
        try await with(make) { store in
            let empty = try await store.statistics()
            #expect(empty.entries == 0)
            #expect(empty.bytes == 0)
            #expect(!empty.engine.isEmpty)
            var valueBytes = 0
            for i in 0..<10 {
                try await store.store(CacheEntry(key: "s\(i)", value: bytes(100 * i)))
                valueBytes += 100 * i
                let statistics = try await store.statistics()
                #expect(statistics.entries == i + 1)
                #expect(statistics.bytes >= valueBytes, "bytes count at least the values")
            }
            try await store.store(CacheEntry(key: "s9", value: bytes(1)))
            #expect(try await store.statistics().entries == 10, "a replacement is not a new entry")
            try await store.removeEntry(forKey: "s0")
            #expect(try await store.statistics().entries == 9)
        }
    }

    /// The byte limit holds after every store; the stored entry is there, the evicted ones are not. A store that
    /// evicts outside `store` (``CacheEvictionReporting``, e.g. write-behind) reports those evictions to its handlers
    /// by the time `statistics()` returns.
    public static func checkByteLimit(_ make: Factory) async throws {
        try await with(make, Limits(byteLimit: 48 << 10)) { store in
            guard let limit = try await store.statistics().byteLimit else { return }
            let reported = Mutex<[CacheEntrySummary]>([])
            (store as? any CacheEvictionReporting)?.onEvictions { evicted in reported.withLock { $0 += evicted } }
            var evictions = 0
            for i in 0..<120 {
                let entry = CacheEntry(key: "limit/\(i)", value: bytes(500 + (i * 397) % 3_000, seed: i))
                var outcome = try await store.store(entry)
                let statistics = try await store.statistics()
                outcome.evicted += reported.withLock { reported in
                    defer { reported = [] }
                    return reported
                }
                guard statistics.bytes <= limit else {
                    Issue.record("after store \(i): \(statistics.bytes) bytes held, over the limit of \(limit)")
                    return
                }
                #expect(try await store.entry(forKey: entry.key, now: 0) == entry)
                for evicted in outcome.evicted {
                    #expect(evicted.key != entry.key)
                    #expect(try await store.entry(forKey: evicted.key, now: 0) == nil, "evicted '\(evicted.key)'")
                }
                evictions += outcome.evicted.count
            }
            #expect(evictions > 0, "120 entries of 0.5–3.5 KiB overflow 48 KiB")
            #expect(try await store.statistics().entries == 120 - evictions)
        }
    }

    /// An entry larger than the whole byte limit is refused with `.tooLarge`, and the store is unchanged.
    public static func checkTooLarge(_ make: Factory) async throws {
        try await with(make, Limits(byteLimit: 48 << 10)) { store in
            guard let limit = try await store.statistics().byteLimit else { return }
            try await store.store(CacheEntry(key: "small", value: [1]))
            do {
                try await store.store(CacheEntry(key: "huge", value: bytes(limit + 1)))
                Issue.record("an entry of \(limit + 1) bytes was accepted by a store limited to \(limit)")
            } catch let error as CacheError {
                #expect(error.code == .tooLarge)
            }
            #expect(try await store.entry(forKey: "huge", now: 0) == nil)
            #expect(try await store.entry(forKey: "small", now: 0) != nil)
        }
    }

    /// Closing twice is no error.
    public static func checkClose(_ make: Factory) async throws {
        let store = try await make(roomy)
        try await store.store(CacheEntry(key: "c", value: [1]))
        try await store.close()
        try await store.close()
    }
}
