package import Cache

/// The Cache module's `memory` store: ``Cache/InMemoryCacheStore``, an LRU in this process only (options `byte-limit`,
/// default 64 MiB, and `count-limit`).
package struct InMemoryCacheStoreDescription: EngineDescription {
    /// Creates the description.
    package init() {}

    package var name: String { "memory" }
    package var optionKeys: [String] { ["byte-limit", "count-limit"] }
    package var keepsDataInMemory: Bool { true }

    package func options(_ options: EngineOptions) throws -> (bytes: Int, count: Int?) {
        let limits = try CacheLimitOptions(options)
        return (limits.bytes ?? 64 << 20, limits.count)
    }

    package func make(_ limits: (bytes: Int, count: Int?), in context: SuiteContext) async throws -> any CacheStore {
        try InMemoryCacheStore(byteLimit: limits.bytes, countLimit: limits.count)
    }
}
