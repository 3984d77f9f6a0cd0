public import SuiteCore

/// A plugin's observer engine, seen by the host as an ordinary `ObserverEngine`.
public struct PluginObserverEngine: ObserverEngine {
    /// The plugin engine behind this adapter.
    public let handle: PluginEngineHandle
    private let engine: PluginEngine<ObserverEngineKind>

    /// Wraps a plugin engine of kind `observer`.
    public init(handle: PluginEngineHandle) {
        self.handle = handle
        self.engine = PluginEngine(handle: handle)
    }

    public func receive(_ events: [ObservedEvent]) async throws {
        switch events.count {
        case 0: return
        case 1: try await engine.send(ObserverRequest.event(events[0]))
        default: try await engine.send(ObserverRequest.events(events))
        }
    }

    public func flush() async throws {
        try await engine.send(ObserverRequest.flush)
    }
}
