// A newcomer's program on the Cache product alone: the README's first example against a real HTTP server (the URL of
// a file served with `Cache-Control: max-age=60`, and its expected content, as arguments), checking its own results.
// Tools/consumer-check.sh builds and runs it.
import Cache
import CacheURLSession
import Foundation
import SuiteCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("CacheConsumer: \(message())\n".utf8))
    exit(1)
}

check(CommandLine.arguments.count == 4, "usage: CacheConsumer DIRECTORY URL EXPECTED-BODY")
let directory = CommandLine.arguments[1]
let fileURL = CommandLine.arguments[2]
let expected = Array(CommandLine.arguments[3].utf8)

// MARK: - The README's example

let bus = EventBus()
let store = TieredCacheStore(
    memory: try InMemoryCacheStore(byteLimit: 8 << 20), back: try SQLiteCacheStore(path: directory + "/cache.sqlite"))
let cache = DataCache(store: store, bus: bus)  // hit, miss, stale, store, evict and error events on the bus
try await cache.set(Array("hello".utf8), forKey: "greeting", lifetime: 3600, tags: ["home"])
let greeting = await cache.data(forKey: "greeting")

let rules = CacheRules(
    rules: [.init(pattern: "https://api.example.com/payments/**", neverCache: true)],
    transientQueryItems: ["token"])
let client = CachedHTTPClient(cache: cache, rules: rules)  // URLSession; a server passes AsyncHTTPClientTransport
let first = try await client.send(.init(url: fileURL))
let second = try await client.send(.init(url: fileURL))
print(first.cacheStatus, second.cacheStatus)  // .miss, then .hit while fresh

// MARK: - Checks

check(greeting == Array("hello".utf8), "the greeting read back as \(String(describing: greeting))")
check(first.status == 200 && first.body == expected, "the first fetch answered \(first.status), \(first.body.count) B")
check(first.cacheStatus == .miss, "the first fetch was \(first.cacheStatus), expected a miss")
check(second.cacheStatus == .hit, "the second fetch was \(second.cacheStatus), expected a hit")
check(second.body == first.body, "the hit's body differs from the origin's")
check(client.upstreamRequests == 1, "\(client.upstreamRequests) requests reached the origin, expected 1")

// URLSession's shapes: a URLRequest through the cache is a hit too.
let (data, response) = try await client.data(for: URLRequest(url: URL(string: fileURL)!))
let cacheStatus = response.value(forHTTPHeaderField: "Cache-Status") ?? ""
check(data == Data(expected) && cacheStatus.contains("hit"), "data(for:) answered Cache-Status '\(cacheStatus)'")
check(client.upstreamRequests == 1, "data(for:) reached the origin")

// Foundation's Data and URL keys on DataCache round-trip.
let avatar = URL(string: "https://cdn.example.com/u/42.png")!
try await cache.set(Data([0x89, 0x50, 0x4E, 0x47]), for: avatar, lifetime: 3600)
check(await cache.data(for: avatar) == Data([0x89, 0x50, 0x4E, 0x47]), "data(for: URL) lost the bytes")
try await cache.set(Data("bytes".utf8), forKey: "raw")
check(await cache.cachedData(forKey: "raw") == Data("bytes".utf8), "cachedData(forKey:) lost the bytes")
check(try await cache.removeData(for: avatar), "removeData(for:) found nothing to remove")
check(await cache.data(for: avatar) == nil, "data(for: URL) still answers after removeData(for:)")
print("CacheConsumer: ok (miss then hit, 1 upstream request, Data/URL round trips)")
