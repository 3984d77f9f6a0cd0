@_spi(Engine) import Cache
import CachePluginSupport
import Foundation
import RedisTestSupport
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Synchronization

/// Loads the built RedisCache plugin (a test fails, not skips, when it is not built: `swift build --product
/// RedisCache`) and makes `redis` engines on a test's server, each under its own prefix.
enum RedisFixture {
    static func plugin() throws -> LoadedPlugin {
        try PluginLoader.load(path: TestSupport.plugin("RedisCache"))
    }

    static func options(_ server: RedisServer, pool: Int = 4) -> JSONValue {
        [
            "url": .string(server.url), "prefix": .string("test-\(UUID().uuidString.prefix(8)):"),
            "pool": .int(Int64(pool)),
        ]
    }

    static func store(_ server: RedisServer, pool: Int = 4, services: PluginHostServices = .discarding) throws
        -> PluginCacheStore
    {
        try PluginCacheStore(
            plugin: try plugin(), name: "redis", options: options(server, pool: pool), services: services,
            callTimeout: .seconds(600))
    }
}

/// A plain in-test `CacheStore` (no limits): the store behind the wire round trip.
final class DictionaryCacheStore: CacheStore {
    private let entries = Mutex<[String: CacheEntry]>([:])

    func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        entries.withLock { $0[key] }.flatMap { $0.metadata.isExpired(at: now) ? nil : $0 }
    }

    func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        if entry.key == "refused" { throw CacheError(.tooLarge, "refused on purpose", hint: "store less") }
        entries.withLock { $0[entry.key] = entry }
        return CacheStoreOutcome()
    }

    func removeEntry(forKey key: String) async throws -> Bool {
        entries.withLock { $0.removeValue(forKey: key) != nil }
    }

    func removeEntries(withPrefix prefix: String) async throws -> Int {
        remove { $0.key.hasPrefix(prefix) }
    }

    func removeEntries(taggedWith tag: String) async throws -> Int {
        remove { $0.metadata.tags.contains(tag) }
    }

    func removeExpired(now: Int64) async throws -> Int {
        remove { $0.metadata.isExpired(at: now) }
    }

    func removeAll() async throws -> Int {
        remove { _ in true }
    }

    private func remove(where matches: (CacheEntry) -> Bool) -> Int {
        entries.withLock { entries in
            let keys = entries.values.filter(matches).map(\.key)
            for key in keys { entries.removeValue(forKey: key) }
            return keys.count
        }
    }

    func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        entries.withLock { entries in
            entries.values.filter { entry in key.map { entry.key > $0 } ?? true }.sorted { $0.key < $1.key }.prefix(
                limit
            )
            .map(CacheEntrySummary.init)
        }
    }

    func statistics() async throws -> CacheStoreStatistics {
        entries.withLock { entries in
            CacheStoreStatistics(
                engine: "dictionary", entries: entries.count, bytes: entries.values.reduce(0) { $0 + $1.cost })
        }
    }
}

/// A store whose every call crosses the cache kind's wire format and the plugin-side handler: encoded as the host
/// encodes it, served by `PluginRequestHandler.cache(serving:)` as a Swift plugin serves it, decoded as the host
/// decodes it. Everything `PluginCacheStore` does except the C call itself.
struct WireLoopbackStore: CacheStore {
    let handler: PluginRequestHandler<CacheEngineKind>

    init(serving store: any CacheStore) {
        handler = .cache(serving: store)
    }

    func send(_ request: CacheStoreRequest) async throws -> CacheStoreResponse {
        let response = try await handler.handle(operation: request.operationName, request: request.encodePayload())
        return try response.withUnsafeBytes { try request.decodeResponse(from: $0) }
    }

    func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        guard case .entry(let entry) = try await send(.get(key: key, now: now)) else { throw mismatch }
        return entry
    }

    func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        guard case .stored(let outcome) = try await send(.store(entry)) else { throw mismatch }
        return outcome
    }

    func removeEntry(forKey key: String) async throws -> Bool {
        guard case .removed(let removed) = try await send(.remove(key: key)) else { throw mismatch }
        return removed
    }

    func removeEntries(withPrefix prefix: String) async throws -> Int { try await count(.removePrefix(prefix)) }
    func removeEntries(taggedWith tag: String) async throws -> Int { try await count(.removeTag(tag)) }
    func removeExpired(now: Int64) async throws -> Int { try await count(.removeExpired(now: now)) }
    func removeAll() async throws -> Int { try await count(.removeAll) }

    private func count(_ request: CacheStoreRequest) async throws -> Int {
        guard case .count(let count) = try await send(request) else { throw mismatch }
        return count
    }

    func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        guard case .summaries(let summaries) = try await send(.summaries(after: key, limit: limit)) else {
            throw mismatch
        }
        return summaries
    }

    func statistics() async throws -> CacheStoreStatistics {
        guard case .statistics(let statistics) = try await send(.statistics) else { throw mismatch }
        return statistics
    }

    func close() async throws {
        _ = try await send(.close)
    }

    private var mismatch: CacheError { CacheError(.storage, "another response") }
}
