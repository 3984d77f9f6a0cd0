package import Cache
import CachePluginSupport
import Foundation
package import SuiteCore
import SuiteHTTPNIO
import SuitePluginKit

/// The Cache module as the host sees it: the `cache` section, the `sqlite` and `memory` stores, the `cache` plugin
/// kind (e.g. `redis` from Plugins/RedisCache), the memory tier in front, the protected tier and the HTTP rules.
///
/// ```yaml
/// cache:
///   engine: sqlite                  # or memory, or a cache engine from a plugin (redis)
///   options: {path: cache.sqlite, byte-limit: 268435456, count-limit: 100000, inline-limit: 16384}
///   # write-behind: 0.1 in options stages stores and writes them together every 100 ms (a crash loses those)
///   memory: {byte-limit: 8388608}   # the memory tier in front of the engine; byte-limit 0 turns it off
///   protected: {path: cache-protected.sqlite, key-file: cache.key}
///   rules:
///     - {pattern: "https://api.example.com/payments/**", never: true}
///     - {pattern: "https://api.example.com/users/*", lifetime: 3600, tags: [users]}
///     - {pattern: "https://api.example.com/me", sensitive: true}   # kept in the protected tier only
///   transient-query-items: [token, sig]
///   shared: false                   # true for a cache serving several users (a server)
/// ```
package struct CacheModule: SuiteModule {
    /// The module's stores: `sqlite` (default), `memory`, then `cache` engines from plugins.
    package var engines: EngineRegistry<any CacheStore>

    /// The module with its built-in stores.
    package init() {
        engines = EngineRegistry(
            module: "cache", descriptions: [SQLiteCacheStoreDescription(), InMemoryCacheStoreDescription()],
            plugins: PluginEngines(kind: EngineKind.cache) { handle in PluginCacheStore(handle: handle) })
    }

    /// The module with `engines` (a test's or an app's own store added to the built-in ones).
    package init(engines: EngineRegistry<any CacheStore>) {
        self.engines = engines
    }

    package var name: String { "Cache" }
    package var configurationKey: String { "cache" }
    package var builtInEngines: [String] { engines.names }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The store, its options decoded.
        package var engine: ConfiguredEngine<any CacheStore>
        /// The memory tier's byte limit (0: no memory tier).
        package var memoryBytes: Int
        /// The protected tier's database path option and key file option, as written.
        package var protectedPath: String?
        /// The protected tier's key file option, as written.
        package var keyFile: String?
        /// Rules and transient query items.
        package var rules: CacheRules
        /// Whether the cache serves several users.
        package var isShared: Bool
    }

    /// Decodes and checks the `cache` section.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(
            object, known: ["engine", "options", "memory", "protected", "rules", "transient-query-items", "shared"])
        let engine = try engines.configure(object, at: configurationKey, in: section)
        var memoryBytes = 8 << 20
        if let memory = object["memory"] {
            guard let map = memory.objectValue else {
                throw section.error("cache.memory", "must be a map, e.g. {byte-limit: 8388608}")
            }
            try section.checkKeys(map, at: "cache.memory", known: ["byte-limit", "count-limit"])
            if let value = map["byte-limit"] {
                guard let bytes = value.intValue, bytes >= 0, bytes <= Int64(Int32.max) else {
                    throw section.error(
                        "cache.memory.byte-limit", "must be a number of bytes ≥ 0, not \(value.jsonString)")
                }
                memoryBytes = Int(bytes)
            }
        }
        var protectedPath: String?
        var keyFile: String?
        if let protected = object["protected"] {
            guard let map = protected.objectValue else {
                throw section.error("cache.protected", "must be a map, e.g. {key-file: cache.key}")
            }
            try section.checkKeys(map, at: "cache.protected", known: ["path", "key-file"])
            for key in ["path", "key-file"] where map[key] != nil && map[key]?.stringValue == nil {
                throw section.error("cache.protected.\(key)", "must be a file path")
            }
            protectedPath = map["path"]?.stringValue
            keyFile = map["key-file"]?.stringValue
        }
        let rules = try Self.rules(object, section: section)
        var isShared = false
        if let shared = object["shared"] {
            guard let flag = shared.boolValue else { throw section.error("cache.shared", "must be true or false") }
            isShared = flag
        }
        return Settings(
            engine: engine, memoryBytes: memoryBytes, protectedPath: protectedPath, keyFile: keyFile,
            rules: rules, isShared: isShared)
    }

    static func rules(_ object: [String: JSONValue], section: ConfigurationSection) throws -> CacheRules {
        var rules = CacheRules()
        if let items = object["transient-query-items"] {
            guard let names = items.arrayValue?.compactMap(\.stringValue), names.count == items.arrayValue?.count
            else { throw section.error("cache.transient-query-items", "must be a list of query item names") }
            rules.transientQueryItems = Set(names)
        }
        guard let list = object["rules"] else { return rules }
        let hint = "e.g. rules: [{pattern: \"https://api.example.com/payments/**\", never: true}]"
        guard let items = list.arrayValue else { throw section.error("cache.rules", "must be a list", hint: hint) }
        for (index, item) in items.enumerated() {
            let key = "cache.rules[\(index)]"
            guard let map = item.objectValue else { throw section.error(key, "must be a map", hint: hint) }
            try section.checkKeys(
                map, at: key, known: ["pattern", "never", "lifetime", "override", "tags", "sensitive"])
            guard let pattern = map["pattern"]?.stringValue, !pattern.isEmpty else {
                throw section.error("\(key).pattern", "is missing: every rule needs a URL pattern", hint: hint)
            }
            var rule = CacheRules.Rule(pattern: pattern)
            if let never = map["never"] {
                guard let flag = never.boolValue else { throw section.error("\(key).never", "must be true or false") }
                rule.neverCache = flag
            }
            if let lifetime = map["lifetime"] {
                guard let seconds = lifetime.intValue, seconds > 0, seconds <= Int64(Int32.max) else {
                    throw section.error(
                        "\(key).lifetime", "must be a positive number of seconds, not \(lifetime.jsonString)")
                }
                rule.lifetime = Int(seconds)
            }
            if let sensitive = map["sensitive"] {
                guard let flag = sensitive.boolValue else {
                    throw section.error("\(key).sensitive", "must be true or false")
                }
                rule.sensitive = flag
            }
            if let override = map["override"] {
                guard let flag = override.boolValue else {
                    throw section.error("\(key).override", "must be true or false")
                }
                rule.overridesHTTP = flag
            }
            if let tags = map["tags"] {
                guard let names = tags.arrayValue?.compactMap(\.stringValue), names.count == tags.arrayValue?.count
                else { throw section.error("\(key).tags", "must be a list of tag names") }
                rule.tags = names
            }
            rules.rules.append(rule)
        }
        return rules
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        var status = await settings.engine.status(in: context)
        if settings.memoryBytes > 0, !settings.engine.keepsDataInMemory {
            status.details.insert(.init("memory tier", Self.formatBytes(settings.memoryBytes)), at: 0)
        }
        return status
    }

    /// `bytes` for people: `512 B`, `1.5 MiB`.
    package static func formatBytes(_ bytes: Int) -> String { DocumentsModule.formatBytes(Int64(bytes)) }
}

extension SuiteContext {
    /// The cache on the configured store (with the memory tier in front and the protected tier for secrets), opened
    /// once per context; closed when the context shuts down, adding its lookup counts to the counter file.
    package func dataCache() async throws -> DataCache {
        try await resources.open("cache") { [self] in
            let settings = try settings(of: CacheModule.self)
            let engine = try await settings.engine.make(in: self)
            let store: any CacheStore =
                settings.memoryBytes > 0 && !settings.engine.keepsDataInMemory
                ? TieredCacheStore(memory: try InMemoryCacheStore(byteLimit: settings.memoryBytes), back: engine)
                : engine
            // The protected tier: its own SQLite file, sealed with the key file (created 0600 on first use).
            try ensureDataDirectory()
            let protectedBase = try SQLiteCacheStore(
                path: dataFile(settings.protectedPath.map(JSONValue.string), default: "cache-protected.sqlite"),
                configuration: SQLiteCacheStore.Configuration(byteLimit: 64 << 20), logger: logger)
            let protected = try ProtectedCacheStore(
                base: protectedBase,
                keyProvider: FileKeyProvider(
                    path: dataFile(settings.keyFile.map(JSONValue.string), default: "cache.key")),
                onError: DataCache.errorReporter(bus: bus))
            let cache = DataCache(
                store: store, protectedStore: protected, clock: clock, bus: bus, tier: settings.engine.name)
            let counters = try cacheCounters()
            return (
                cache,
                {
                    // Closing first: a write-behind store evicts when it writes what it staged, and those count too.
                    var failure: (any Error)?
                    do { try await store.close() } catch { failure = error }
                    do { try await settings.engine.close(engine) } catch { failure = failure ?? error }
                    try? counters.add(cache.counts)
                    try await protectedBase.close()
                    if let failure { throw failure }
                }
            )
        }
    }

    /// The HTTP client over ``dataCache()`` with the configured rules, on AsyncHTTPClient.
    package func cachedHTTPClient() async throws -> CachedHTTPClient {
        try await resources.open("cache.http") { [self] in
            let settings = try settings(of: CacheModule.self)
            let cache = try await dataCache()
            let transport = AsyncHTTPClientTransport()
            let client = CachedHTTPClient(
                cache: cache, transport: transport, rules: settings.rules, isShared: settings.isShared)
            return (client, { try await transport.shutdown() })
        }
    }

    /// The file of lookup counts across processes (`cache-counts.sqlite` in the data directory).
    package func cacheCounters() throws -> CacheCounterFile {
        try ensureDataDirectory()
        return try CacheCounterFile(path: configuration.dataDirectory + "/cache-counts.sqlite")
    }
}
