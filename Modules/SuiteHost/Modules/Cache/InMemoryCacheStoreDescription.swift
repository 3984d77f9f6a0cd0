public import Cache

/// The Cache module's `memory` store: ``Cache/InMemoryCacheStore``, an LRU in this process only (options `byte-limit`,
/// default 64 MiB, and `count-limit`).
public struct InMemoryCacheStoreDescription: EngineDescription {
    /// Creates the description.
    public init() {}

    public var name: String { "memory" }
    public var optionKeys: [String] { ["byte-limit", "count-limit"] }
    public var keepsDataInMemory: Bool { true }

    public func options(_ options: EngineOptions) throws -> (bytes: Int, count: Int?) {
        let limits = try CacheLimitOptions(options)
        return (limits.bytes ?? 64 << 20, limits.count)
    }

    public func make(_ limits: (bytes: Int, count: Int?), in context: SuiteContext) async throws -> any CacheStore {
        try InMemoryCacheStore(byteLimit: limits.bytes, countLimit: limits.count)
    }
}
