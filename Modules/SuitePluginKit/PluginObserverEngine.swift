public import SuiteCore

/// A plugin's observer engine, seen by the host as an ordinary ``ObserverEngine``.
public struct PluginObserverEngine: ObserverEngine {
    /// The plugin engine behind this adapter.
    public let handle: PluginEngineHandle

    /// Wraps a plugin engine of kind `observer`.
    public init(handle: PluginEngineHandle) {
        self.handle = handle
    }

    public func receive(_ events: [ObservedEvent]) async throws {
        switch events.count {
        case 0: return
        case 1: _ = try await handle.call("event", request: ObserverWire.encode(events[0]))
        default: _ = try await handle.call("events", request: ObserverWire.encode(events))
        }
    }

    public func flush() async throws {
        _ = try await handle.call("flush")
    }
}
