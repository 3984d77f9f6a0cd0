// The shared contract suite from the cache-stores branch: compiled as soon as its module is in the build (add
// "CacheStoreContract" to this target's dependencies in Package.swift when merging), until then CacheStoreChecks
// stands in for it.
#if canImport(CacheStoreContract)
    import Cache
    import CacheStoreContract
    import RedisTestSupport
    import Testing

    @Suite("The shared cache store contract over plugin engines")
    struct CacheStoreContractTests {
        @Test("the redis engine of RedisCache")
        func redis() async throws {
            let server = try RedisServer.start()
            defer { server.stop() }
            try await CacheStoreContract.check { try RedisFixture.store(server) }
        }

        @Test("a Swift store through the cache kind's wire")
        func wire() async throws {
            try await CacheStoreContract.check { WireLoopbackStore(serving: DictionaryCacheStore()) }
        }
    }
#endif
