import Cache
import CachePluginSupport
import Foundation
import RedisTestSupport
import SuiteCore
import SuitePluginKit
import Synchronization
import Testing

/// The RedisCache plugin (C, hiredis) loaded from its built `.so` through the real plugin loader, on a real
/// `redis-server` started for each test on a free loopback port. Fails when redis-server is not installed.
@Suite("The redis cache engine")
struct RedisCacheTests {
    @Test("RedisCache loads and lists its cache engine")
    func describesEngine() throws {
        let plugin = try RedisFixture.plugin()
        #expect(plugin.name == "RedisCache")
        #expect(plugin.engines == [PluginEngineInfo(kind: EngineKind.cache, name: "redis")])
        #expect(plugin.acceptsHostServices)
    }

    @Test("the redis engine passes the cache store contract checks")
    func contract() async throws {
        let server = try RedisServer.start()
        defer { server.stop() }
        try await CacheStoreCheck.runAll { try RedisFixture.store(server, pool: 2) }
    }

    @Test("expiry is Redis's PEXPIREAT, tags are Redis sets, under the prefix")
    func redisDataModel() async throws {
        let server = try RedisServer.start()
        defer { server.stop() }
        let store = try PluginCacheStore(
            plugin: try RedisFixture.plugin(), name: "redis", options: ["url": .string(server.url), "prefix": "m:"])
        let expiresAt = CacheStoreCheck.later
        try await store.store(
            CacheEntry(key: "a", value: [1], metadata: CacheMetadata(expiresAt: expiresAt, tags: ["news"])))
        try await store.store(CacheEntry(key: "b", value: [2]))
        #expect(try server.cli(["PEXPIRETIME", "m:e:a"]) == "\(expiresAt)")
        #expect(try server.cli(["PEXPIRETIME", "m:e:b"]) == "-1")
        #expect(try server.cli(["SMEMBERS", "m:t:news"]) == "m:e:a")
        #expect(try server.cli(["PEXPIRETIME", "m:t:news"]) == "\(expiresAt)")
        #expect(try await store.removeEntries(taggedWith: "news") == 1)
        #expect(try server.cli(["EXISTS", "m:t:news"]) == "0")

        // Stored already expired: Redis keeps it a minute (the caller's clock may be behind), the sweep takes it.
        let before = CacheEntry.time(Date())
        try await store.store(CacheEntry(key: "old", value: [3], metadata: CacheMetadata(expiresAt: 1_000)))
        #expect((Int64(try server.cli(["PEXPIRETIME", "m:e:old"])) ?? 0) >= before + 60_000)
        #expect(try await store.entry(forKey: "old", now: 999) != nil)
        #expect(try await store.entry(forKey: "old", now: 1_000) == nil)
        #expect(try await store.removeExpired(now: 999) == 0)
        #expect(try await store.removeExpired(now: 1_000) == 1)
        #expect(try server.cli(["EXISTS", "m:e:old"]) == "0")
    }

    @Test("statistics name the engine and report Redis's maxmemory as the byte limit")
    func statistics() async throws {
        let server = try RedisServer.start(arguments: ["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"])
        defer { server.stop() }
        let store = try RedisFixture.store(server)
        try await store.store(CacheEntry(key: "x", value: Array(repeating: 1, count: 1000)))
        let statistics = try await store.statistics()
        #expect(statistics.engine == "redis")
        #expect(statistics.entries == 1)
        #expect(statistics.bytes > 1000)
        #expect(statistics.byteLimit == 64 * 1024 * 1024)
        #expect(statistics.countLimit == nil)
    }

    @Test("an unreachable Redis is a clear error at creation, naming host and port")
    func unreachable() throws {
        let port = try RedisServer.freePort()
        let error = #expect(throws: PluginError.self) {
            _ = try PluginCacheStore(
                plugin: try RedisFixture.plugin(), name: "redis", options: ["url": .string("redis://127.0.0.1:\(port)")]
            )
        }
        #expect(error?.code == .engineCreationFailed)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true)
        #expect(error?.message.contains("Connection refused") == true)
    }

    @Test(
        "strict options: each mistake is refused, naming the option",
        arguments: [
            (["colour": "red"], "colour"), (["pool": 0], "pool"), (["pool": "4"], "pool"),
            (["url": "http://127.0.0.1"], "redis://"), (["url": "redis://127.0.0.1:99999"], "port"),
            (["timeout-ms": 1.5], "timeout-ms"),
        ] as [(JSONValue, String)])
    func strictOptions(_ options: JSONValue, _ named: String) throws {
        let error = #expect(throws: PluginError.self) {
            _ = try PluginCacheStore(plugin: try RedisFixture.plugin(), name: "redis", options: options)
        }
        #expect(error?.message.contains(named) == true, "\(error?.message ?? "")")
    }

    @Test("killing redis-server mid-use: a get is a miss, a write a storage error, no crash; a restart heals it")
    func serverKilledMidUse() async throws {
        let server = try RedisServer.start()
        defer { server.stop() }
        let warnings = Mutex<[String]>([])
        let store = try RedisFixture.store(
            server, pool: 2,
            services: PluginHostServices(
                log: { _, message in warnings.withLock { $0.append(message) } }, publish: { _, _ in }))
        let entry = CacheEntry(key: "k", value: [1, 2, 3])
        try await store.store(entry)
        #expect(try await store.entry(forKey: "k", now: 0) == entry)

        server.kill()
        #expect(try await store.entry(forKey: "k", now: 0) == nil)
        let error = await #expect(throws: CacheError.self) { try await store.store(entry) }
        #expect(error?.code == .storage)
        #expect(error?.message.contains("127.0.0.1:\(server.port)") == true)
        await #expect(throws: CacheError.self) { try await store.removeAll() }
        #expect(warnings.withLock { $0.contains { $0.contains("127.0.0.1:\(server.port)") } })

        try server.restart()
        #expect(try await store.entry(forKey: "k", now: 0) == nil)  // nothing was persisted
        try await store.store(entry)
        #expect(try await store.entry(forKey: "k", now: 0) == entry)
    }

    @Test("a closed store refuses calls; closing twice does nothing")
    func close() async throws {
        let server = try RedisServer.start()
        defer { server.stop() }
        let store = try RedisFixture.store(server)
        try await store.close()
        try await store.close()
        await #expect(throws: CacheError.self) { _ = try await store.entry(forKey: "k", now: 0) }
    }
}
