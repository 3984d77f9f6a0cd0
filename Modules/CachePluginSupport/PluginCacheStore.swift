public import Cache
public import Logging
public import SuiteCore
public import SuitePluginKit
import Synchronization

/// A plugin's `cache` engine, seen by the host as an ordinary `CacheStore`: each requirement is one call through
/// the C ABI with a ``CacheStoreWire`` payload (a lookup is one small binary request and one binary answer, no JSON).
///
/// ```swift
/// let plugin = try PluginLoader(searchDirectories: ["/opt/suite/plugins"]).load("RedisCache")
/// let store: any CacheStore = try PluginCacheStore(
///     plugin: plugin, name: "redis", options: ["url": "redis://127.0.0.1:6379/0", "prefix": "app:"])
/// try await store.store(CacheEntry(key: "greeting", value: Array("hello".utf8)))
/// let hit = try await store.entry(forKey: "greeting")
/// ```
///
/// Errors: a `CacheError` thrown (or, from C, sent) inside the plugin comes back with the same code, message and
/// hint. A failure of the call itself (unsupported operation, malformed request or response, a timeout) becomes a
/// `.storage` `CacheError` whose `underlying`, when there is one, is the `PluginError`. Calls may run
/// concurrently. After ``close()``, every call fails with `.storage`.
public struct PluginCacheStore: CacheStore {
    private let engine: PluginEngine<CacheEngineKind>
    private let state: ClosedFlag

    /// The plugin engine behind this adapter.
    public var handle: PluginEngineHandle { engine.handle }

    /// Wraps a plugin engine of kind `EngineKind/cache`.
    public init(handle: PluginEngineHandle) {
        self.engine = PluginEngine(handle: handle)
        self.state = ClosedFlag()
    }

    /// Creates the `cache` engine `name` of `plugin` with `options`; see
    /// `LoadedPlugin.makeEngine(kind:name:options:services:callTimeout:logger:)` for the other parameters.
    /// - Throws: `PluginError` when the plugin has no such engine or refuses the options (e.g. the Redis plugin
    ///   when its server cannot be reached; the message names the plugin's reason).
    public init(
        plugin: LoadedPlugin, name: String, options: JSONValue = .object([:]),
        services: PluginHostServices = .discarding, callTimeout: Duration = PluginEngineHandle.defaultCallTimeout,
        logger: Logger = Logger(label: "suite.plugins", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        self.engine = try PluginEngine(
            plugin: plugin, name: name, options: options, services: services, callTimeout: callTimeout,
            logger: logger)
        self.state = ClosedFlag()
    }

    private func send(_ request: CacheStoreRequest) async throws -> CacheStoreResponse {
        guard !state.isClosed else {
            throw CacheError(
                .storage, "the cache engine '\(handle.name)' of plugin \(handle.plugin.name) is closed",
                hint: "create a new PluginCacheStore")
        }
        return try await engine.send(request)
    }

    private func mismatch(_ operation: CacheStoreOperation) -> CacheError {
        CacheError(.storage, "cache engine plugin answered '\(operation.rawValue)' with another response")
    }

    public func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        guard case .entry(let entry) = try await send(.get(key: key, now: now)) else { throw mismatch(.get) }
        return entry
    }

    @discardableResult
    public func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        guard case .stored(let outcome) = try await send(.store(entry)) else { throw mismatch(.store) }
        return outcome
    }

    @discardableResult
    public func removeEntry(forKey key: String) async throws -> Bool {
        guard case .removed(let removed) = try await send(.remove(key: key)) else { throw mismatch(.remove) }
        return removed
    }

    @discardableResult
    public func removeEntries(withPrefix prefix: String) async throws -> Int {
        try await count(.removePrefix(prefix))
    }

    @discardableResult
    public func removeEntries(taggedWith tag: String) async throws -> Int {
        try await count(.removeTag(tag))
    }

    @discardableResult
    public func removeExpired(now: Int64) async throws -> Int {
        try await count(.removeExpired(now: now))
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        try await count(.removeAll)
    }

    private func count(_ request: CacheStoreRequest) async throws -> Int {
        guard case .count(let count) = try await send(request) else { throw mismatch(request.operation) }
        return count
    }

    public func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        guard case .summaries(let summaries) = try await send(.summaries(after: key, limit: limit)) else {
            throw mismatch(.summaries)
        }
        return summaries
    }

    public func statistics() async throws -> CacheStoreStatistics {
        guard case .statistics(let statistics) = try await send(.statistics) else { throw mismatch(.statistics) }
        return statistics
    }

    /// Closes the plugin's store (operation `close`); later calls fail. A second call does nothing.
    public func close() async throws {
        guard state.close() else { return }
        _ = try await engine.send(CacheStoreRequest.close)
    }
}

/// Whether a ``PluginCacheStore`` (and every copy of it) is closed.
private final class ClosedFlag: Sendable {
    private let closed = Mutex(false)

    var isClosed: Bool { closed.withLock { $0 } }

    /// Closes; whether this call did it (`false`: it was closed already).
    func close() -> Bool {
        closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
    }
}
