public import Cache
public import SuiteCore
public import SuitePluginKit

extension ExportedEngine {
    /// A cache storage engine: any `CacheStore` made from the configured options, served as the `cache` kind
    /// (``CacheEngineKind``) with the ``CacheStoreWire`` payloads.
    ///
    /// ```swift
    /// let plugin = PluginExport(name: "MyCache", version: "1.0.0", engines: [
    ///     .cache("my-memory") { options in MyCacheStore(options: options) }
    /// ])
    /// @_cdecl("suite_plugin_v1") public func suitePluginV1() -> UnsafeRawPointer { plugin.descriptor }
    /// ```
    ///
    /// The host may call a cache engine concurrently; each call runs in its own task (every `CacheStore` is
    /// `Sendable` and built for it).
    public static func cache(
        _ name: String, make: @escaping @Sendable (JSONValue) throws -> any CacheStore
    ) -> ExportedEngine {
        cache(name) { options, _ in try make(options) }
    }

    /// A cache storage engine made from the configured options and the host's services (to log, or to publish
    /// events).
    public static func cache(
        _ name: String, make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> any CacheStore
    ) -> ExportedEngine {
        engine(CacheEngineKind.self, name) { options, host in
            .cache(serving: try make(options, host))
        }
    }
}

extension PluginRequestHandler where Kind == CacheEngineKind {
    /// Serves every `cache` operation with `store`. Anything the store throws travels back as a failure response
    /// (status OK, tag 0), so the host rebuilds the same `CacheError`.
    public static func cache(serving store: any CacheStore) -> PluginRequestHandler {
        PluginRequestHandler().on(CacheStoreRequest.self) { request in await request.run(on: store) }
    }
}
