import Foundation
public import Logging
public import SuiteCore
import SuitePluginKit

/// Everything a `suite` subcommand runs with, built once by the composition root: configuration, logger, bus, clock,
/// loaded plugins and (on demand) engines.
///
/// Nothing here is global: tests build as many contexts as they like, each with its own bus and data directory.
public final class SuiteContext: Sendable {
    /// The version of Suite.
    public static let version = "0.1.0"

    /// The resolved configuration.
    public let configuration: SuiteConfiguration
    /// The logger handed to every module.
    public let logger: Logger
    /// The process's event bus.
    public let bus: EventBus
    /// The wall clock handed to every module.
    public let clock: any WallClock
    /// The plugins that were configured, loaded or not.
    public let plugins: PluginHost

    /// Builds a context from an already loaded configuration.
    public init(
        configuration: SuiteConfiguration, logger: Logger, clock: any WallClock = SystemWallClock(),
        environmentPluginPath: [String] = [], executableDirectory: String? = PluginHost.executableDirectory
    ) {
        self.configuration = configuration
        self.logger = logger
        self.bus = EventBus()
        self.clock = clock
        self.plugins = PluginHost(
            configuration: configuration, environmentPluginPath: environmentPluginPath,
            executableDirectory: executableDirectory)
    }

    /// Makes the data directory if it does not exist yet.
    public func ensureDataDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw SuiteError(
                .io, "cannot create the data directory \(configuration.dataDirectory)",
                hint: "choose another with --data-dir or SUITE_DATA_DIR", underlying: error)
        }
    }

    // MARK: - Observers

    /// Creates every configured observer engine (built in or from a loaded plugin) and attaches them to the bus.
    ///
    /// Throws ``PluginError`` if a plugin failed to load, if no loaded plugin provides a configured engine, or if a
    /// plugin refuses to create one (its own message included).
    public func attachObservers() throws -> ObserverHub {
        try plugins.requireAllLoaded()
        var engines: [(name: String, engine: any ObserverEngine)] = []
        for selection in configuration.observers {
            guard let plugin = plugins.provider(kind: EngineKind.observer, name: selection.engine) else {
                let available = plugins.loaded.flatMap(\.engines).filter { $0.kind == EngineKind.observer }
                    .map(\.name)
                throw PluginError(
                    .engineNotFound,
                    "no loaded plugin provides observer engine '\(selection.engine)'"
                        + (available.isEmpty ? "" : " (loaded observers: \(available.joined(separator: ", ")))"),
                    hint: configuration.plugins.isEmpty
                        ? "list the plugin that provides it under `plugins` in the configuration"
                        : "check the engine name, or add the plugin that provides it to `plugins`")
            }
            let handle = try plugin.makeEngine(
                kind: EngineKind.observer, name: selection.engine, options: selection.options)
            engines.append((selection.engine, PluginObserverEngine(handle: handle)))
        }
        return ObserverHub(bus: bus, engines: engines, clock: clock, logger: logger)
    }
}
