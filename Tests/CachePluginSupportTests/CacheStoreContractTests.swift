import Cache
import CachePluginSupport
import CacheStoreContract
import RedisTestSupport
import Testing

/// The shared `CacheStore` contract over the cache kind: the redis engine of the real RedisCache plugin, and the
/// built-in memory store through the kind's wire format and plugin-side handler (limits and evictions included).
@Suite("The shared cache store contract over the cache kind")
struct CacheStoreContractTests {
    /// Redis's limits are its server's `maxmemory` (counting its own overhead, ~1 MB at start), not the contract's
    /// small byte limits: this server has none, so `byteLimit` is `nil` and the limit checks are skipped.
    @Test("the redis engine of RedisCache")
    func redis() async throws {
        let server = try RedisServer.start()
        defer { server.stop() }
        try await CacheStoreContract.check { _ in try RedisFixture.store(server, pool: 2) }
    }

    @Test("the memory store through the cache kind's wire")
    func memoryThroughTheWire() async throws {
        try await CacheStoreContract.check { limits in
            WireLoopbackStore(
                serving: try InMemoryCacheStore(byteLimit: limits.byteLimit, countLimit: limits.countLimit))
        }
    }
}
