import Cache
import Foundation
import SuiteCore

/// The Cache README's former examples (its snippets now compile in Tests/ReadmeSnippetTests/CacheReadme.swift).
/// Compiled, not called: they reach api.example.com.
func cacheReadmeSnippet() async throws {
    let bus = EventBus()
    let store = TieredCacheStore(
        memory: try InMemoryCacheStore(byteLimit: 8 << 20), back: try SQLiteCacheStore(path: "cache.sqlite"))
    let cache = DataCache(store: store, bus: bus)  // hit, miss, stale, store, evict and error events on the bus
    try await cache.set(Array("hello".utf8), forKey: "greeting", lifetime: 3600, tags: ["home"])
    let greeting = await cache.data(forKey: "greeting")

    let rules = CacheRules(
        rules: [.init(pattern: "https://api.example.com/payments/**", neverCache: true)],
        transientQueryItems: ["token"])
    let client = CachedHTTPClient(cache: cache, rules: rules)  // URLSession; a server passes AsyncHTTPClientTransport
    let response = try await client.send(.init(url: "https://api.example.com/users?page=1"))
    print(response.cacheStatus)  // .miss, then .hit while fresh, .revalidated after a 304
    let feed = CachedHTTPClient.Request(url: "https://api.example.com/feed", policy: .cacheThenNetwork)
    for try await answer in client.responses(for: feed) {
        print(answer.origin, answer.response.status)  // .cached at once (if stored), then .fresh
    }
    _ = greeting
}

/// The Stores section's example.
func cacheStoresSnippet(dataDirectory: String, bytes: [UInt8]) async throws {
    let store = TieredCacheStore(
        memory: try InMemoryCacheStore(byteLimit: 32 << 20),
        back: try SQLiteCacheStore(path: dataDirectory + "/cache.sqlite", configuration: .init(byteLimit: 512 << 20)))
    try await store.store(CacheEntry(key: "avatar/42", value: bytes, metadata: CacheMetadata(tags: ["user:42"])))
    let hit = try await store.entry(forKey: "avatar/42")
    try await store.removeEntries(taggedWith: "user:42")
    _ = hit
}
