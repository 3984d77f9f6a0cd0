// swift-format-ignore-file
// Modules/Cache/README.md's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them line by line). Compiled,
// not called: they reach api.example.com (CacheTests run the same calls against local servers).
import Cache
import CacheURLSession  // data(for: URLRequest), data(from: URL): URLSession's shapes (the Cache product has it)
import Foundation
import SuiteCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func cacheReadme() async throws {
    let store = TieredCacheStore(
        memory: try InMemoryCacheStore(byteLimit: 8 << 20), back: try SQLiteCacheStore(path: "cache.sqlite"))
    let cache = DataCache(store: store, bus: EventBus())  // hit, miss, stale, store, evict and error events on the bus
    try await cache.set(Array("hello".utf8), forKey: "greeting", lifetime: 3600, tags: ["home"])
    let greeting = await cache.data(forKey: "greeting")  // nil once the hour is over
    let removed = try await cache.removeValues(taggedWith: "home")
    try await store.close()
    _ = (greeting, removed)
}

func cacheReadmeHTTP(cache: DataCache) async throws {
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
    let (data, http) = try await client.data(from: URL(string: "https://api.example.com/me")!)  // URLSession's shape
    print(data.count, http.value(forHTTPHeaderField: "Cache-Status") ?? "")  // "Suite; hit" on a hit
}

func cacheReadmeStores(dataDirectory: String, bytes: [UInt8]) async throws {
    let store = TieredCacheStore(
        memory: try InMemoryCacheStore(byteLimit: 32 << 20),
        back: try SQLiteCacheStore(path: dataDirectory + "/cache.sqlite", configuration: .init(byteLimit: 512 << 20)))
    try await store.store(CacheEntry(key: "avatar/42", value: bytes, metadata: CacheMetadata(tags: ["user:42"])))
    let hit = try await store.entry(forKey: "avatar/42")
    try await store.removeEntries(taggedWith: "user:42")
    _ = hit
}
