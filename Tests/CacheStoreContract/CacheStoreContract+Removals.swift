@_spi(Engine) public import Cache
import Testing

extension CacheStoreContract {
    /// Removal by key, prefix, tag, expiry and all, each counting what went and leaving the rest.
    public static func checkRemovals(_ make: Factory) async throws {
        try await with(make) { store in
            func put(_ key: String, tags: [String] = [], expiresAt: Int64? = nil) async throws {
                try await store.store(
                    CacheEntry(key: key, value: bytes(20), metadata: CacheMetadata(expiresAt: expiresAt, tags: tags)))
            }
            try await put("users/1", tags: ["user"])
            try await put("users/2", tags: ["user", "vip"])
            try await put("users/20", tags: ["vip"])
            try await put("usersx", tags: [])
            try await put("orders/1", tags: ["order"], expiresAt: 1_000)
            try await put("orders/2", tags: ["order"], expiresAt: 2_000)
            try await put("orders/3", tags: ["order"])
            try await put("ä/1")
            try await put("ä/2")
            try await put("äb")

            #expect(try await store.removeEntry(forKey: "usersx"))
            #expect(try await store.removeEntry(forKey: "usersx") == false, "removing what is not there")
            #expect(try await store.removeEntries(withPrefix: "users/2") == 2)
            #expect(try await store.entry(forKey: "users/1", now: 0) != nil)
            #expect(try await store.removeEntries(withPrefix: "ä/") == 2)
            #expect(try await store.entry(forKey: "äb", now: 0) != nil)
            #expect(try await store.removeEntries(withPrefix: "nothing") == 0)
            #expect(try await store.removeEntries(taggedWith: "vip") == 0, "vip entries went with their prefix")
            #expect(try await store.removeEntries(taggedWith: "user") == 1)
            #expect(try await store.removeEntries(taggedWith: "user") == 0)
            #expect(try await store.removeExpired(now: 1_500) == 1)
            #expect(try await store.entry(forKey: "orders/2", now: 1_500) != nil)
            #expect(try await store.removeExpired(now: 2_000) == 1)
            #expect(try await store.entry(forKey: "orders/3", now: 9_999_999) != nil, "no expiry: kept")
            #expect(try await store.statistics().entries == 2)
            #expect(try await store.removeAll() == 2)
            #expect(try await store.removeAll() == 0)
            let statistics = try await store.statistics()
            #expect(statistics.entries == 0)
            #expect(statistics.bytes == 0)
            #expect(try await store.summaries(after: nil, limit: 10).isEmpty)
        }
    }

    /// Summaries come in UTF-8 key order, after the key given (exclusive), at most `limit`, and page through all.
    public static func checkSummaries(_ make: Factory) async throws {
        try await with(make) { store in
            let keys = ["b", "a", "a/b", "Z", "é", "z", "a/a", "ab", "✓", "0"]
            for (i, key) in keys.enumerated() {
                try await store.store(richEntry(key, value: bytes(i * 3), tags: ["s\(i)"]))
            }
            let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let all = try await store.summaries(after: nil, limit: 100)
            #expect(all.map(\.key) == sorted)
            for summary in all {
                let i = keys.firstIndex(of: summary.key) ?? 0
                #expect(summary == CacheEntrySummary(richEntry(summary.key, value: bytes(i * 3), tags: ["s\(i)"])))
            }
            var paged: [String] = []
            var after: String?
            while true {
                let page = try await store.summaries(after: after, limit: 3)
                #expect(page.count <= 3)
                guard let last = page.last else { break }
                paged += page.map(\.key)
                after = last.key
            }
            #expect(paged == sorted)
            #expect(try await store.summaries(after: "a/b", limit: 2).map(\.key) == ["ab", "b"])
            #expect(try await store.summaries(after: "✓", limit: 5).isEmpty)
            #expect(try await store.summaries(after: nil, limit: 0).isEmpty)
        }
    }
}
