public import Analytics
public import SuiteCore
public import SuitePluginKit

/// A plugin's `analytics` engine, seen by the host as an ordinary `AnalyticsEngine`: each batch is one
/// `deliver` call through the C ABI (``AnalyticsEngineKind``).
///
/// ```swift
/// let plugin = try PluginLoader(searchDirectories: ["/opt/suite/plugins"]).load("AnalyticsPrometheus")
/// let engine = PluginAnalyticsEngine(
///     handle: try plugin.makeEngine(kind: "analytics", name: "prometheus", options: ["path": "/var/lib/node/suite.prom"]))
/// let analytics = try AnalyticsManager(engine: engine, queue: queue)
/// ```
///
/// A failure inside the plugin comes back as the `AnalyticsError` of the same code; a failed or timed-out
/// call is a `delivery` error, and the manager retries the batch.
public struct PluginAnalyticsEngine: AnalyticsEngine {
    private let engine: PluginEngine<AnalyticsEngineKind>

    /// The plugin engine behind this adapter.
    public var handle: PluginEngineHandle { engine.handle }

    /// Wraps a plugin engine of kind `EngineKind/analytics`.
    public init(handle: PluginEngineHandle) {
        engine = PluginEngine(handle: handle)
    }

    public func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        try await engine.send(AnalyticsEngineKind.Deliver(batch)).report
    }
}

extension ExportedEngine {
    /// An analytics engine: any `AnalyticsEngine` made from the configured options (and the host's
    /// services), served as the `analytics` kind.
    ///
    /// ```swift
    /// let plugin = PluginExport(name: "MyAnalytics", version: "1.0.0", engines: [
    ///     .analytics("mine") { options, host in MyEngine(options: options) }
    /// ])
    /// @_cdecl("suite_plugin_v1") public func suitePluginV1() -> UnsafeRawPointer { plugin.descriptor }
    /// ```
    ///
    /// A record whose wire form does not parse is rejected with a reason; the rest of its batch is delivered.
    public static func analytics(
        _ name: String, make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> any AnalyticsEngine
    ) -> ExportedEngine {
        engine(AnalyticsEngineKind.self, name) { options, host in
            let served = try make(options, host)
            return PluginRequestHandler<AnalyticsEngineKind>()
                .on(AnalyticsEngineKind.Deliver.self) { request in
                    var records: [AnalyticsRecord] = []
                    var unreadable: [AnalyticsEngineKind.Deliver.Response.Item] = []
                    for item in request.batch {
                        if let record = item.record {
                            records.append(record)
                        } else {
                            unreadable.append(
                                .init(id: item.id, reason: "the record's id, session or time is malformed"))
                        }
                    }
                    var response = AnalyticsEngineKind.Deliver.Response(try await served.deliver(records))
                    response.rejected = (response.rejected ?? []) + unreadable
                    return response
                }
        }
    }
}
