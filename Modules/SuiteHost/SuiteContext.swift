import Foundation
package import Logging
import ServiceLifecycle
package import SuiteCore
package import SuitePluginKit
import Synchronization
import UnixSignals

/// Everything a `suite` subcommand runs with, built once by the composition root: configuration, registered
/// modules, logger, bus, clock, loaded plugins, and the engines and services it opens.
///
/// The context owns what it opens: ``run(_:)`` runs the command beside every module's background services
/// (swift-service-lifecycle) and, when the command ends — or on SIGINT or SIGTERM — shuts them down gracefully and
/// closes every engine it opened, newest first. Nothing here is global: tests build as many contexts as they like,
/// each with its own bus and data directory.
package final class SuiteContext: Sendable {
    /// The version of Suite.
    package static let version = "0.2.0"

    /// The resolved configuration.
    package let configuration: SuiteConfiguration
    /// The modules registered with the host, in order.
    package let modules: [any SuiteModule]
    /// The logger handed to every module.
    package let logger: Logger
    /// The process's event bus.
    package let bus: EventBus
    /// The wall clock handed to every module.
    package let clock: any WallClock
    /// The plugins that were configured, loaded or not.
    package let plugins: PluginHost
    /// The engines and stores this context opened, closed at shutdown.
    package let resources: ContextResources
    /// The replica the Documents store became, when `sync.remote` is set.
    package let replica = ReplicaSlot()
    /// Each module's section, decoded once (by the loader, or on first use), by configuration key.
    private let decoded: Mutex<[String: any Sendable]>

    /// Builds a context from an already loaded configuration; `settings` are the sections the loader decoded.
    package init(
        configuration: SuiteConfiguration, modules: [any SuiteModule], settings: ModuleSettings = ModuleSettings(),
        logger: Logger, clock: any WallClock = SystemWallClock(), environmentPluginPath: [String] = [],
        executableDirectory: String? = PluginHost.executableDirectory
    ) {
        self.configuration = configuration
        self.modules = modules
        self.decoded = Mutex(settings.values)
        self.logger = logger
        self.bus = EventBus(clock: clock)
        self.clock = clock
        self.resources = ContextResources(logger: logger)
        self.plugins = PluginHost(
            configuration: configuration, environmentPluginPath: environmentPluginPath,
            executableDirectory: executableDirectory)
    }

    /// The registered module of type `type`, or a new one (every default) when none is registered.
    package func module<M: SuiteModule>(_ type: M.Type) -> M {
        modules.lazy.compactMap { $0 as? M }.first ?? M()
    }

    /// `module`'s section, decoded once: by the loader, or here on first use.
    package func settings<M: SuiteModule>(_ module: M) throws -> M.Settings {
        let key = module.configurationKey
        if let value = decoded.withLock({ $0[key] }) as? M.Settings { return value }
        let value = try module.settings(configuration.section(key), in: configuration)
        decoded.withLock { $0[key] = value }
        return value
    }

    /// The settings of the registered module of type `type`.
    package func settings<M: SuiteModule>(of type: M.Type) throws -> M.Settings { try settings(module(type)) }

    /// A file option as configured: an absolute path as is, a relative one (or `file` when the option is absent) in
    /// the data directory.
    package func dataFile(_ option: JSONValue?, default file: String) -> String {
        let name = option?.stringValue ?? file
        return name.hasPrefix("/") ? name : configuration.dataDirectory + "/" + name
    }

    /// Makes the data directory if it does not exist yet.
    package func ensureDataDirectory() throws {
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw SuiteError(
                .io, "cannot create the data directory \(configuration.dataDirectory)",
                hint: "choose another with --data-dir or SUITE_DATA_DIR", underlying: error)
        }
    }

    /// Creates engine `selection` of `kind` in `plugin`, with the configured options, the `plugin-timeout` deadline
    /// on every call, and the host services: its log lines go to the context's logger (tagged with the plugin and
    /// engine) and its events are published on the bus with source `plugin.<engine>`.
    package func makePluginEngine(_ plugin: LoadedPlugin, kind: String, selection: EngineSelection) throws
        -> PluginEngineHandle
    {
        var engineLogger = logger
        engineLogger[metadataKey: "plugin"] = "\(plugin.name)"
        engineLogger[metadataKey: "engine"] = "\(kind)/\(selection.engine)"
        let events = bus.publisher(source: "plugin.\(selection.engine)")
        let services = PluginHostServices.logging(to: engineLogger) { name, payload in
            events.publish(GenericEvent(name: name, payload: payload))
        }
        return try plugin.makeEngine(
            kind: kind, name: selection.engine, options: selection.options, services: services,
            callTimeout: .milliseconds(Int64((configuration.pluginTimeout * 1000).rounded())), logger: engineLogger)
    }

    // MARK: - Lifecycle

    /// Runs `body` as the command: every module's background services start first (with `withServices`), the
    /// command runs, then the services shut down gracefully in reverse order and every engine the context opened is
    /// closed. SIGINT and SIGTERM start the same graceful shutdown; a command that runs until stopped (`docs watch`)
    /// sees it through swift-service-lifecycle's `gracefulShutdown()` or as task cancellation.
    ///
    /// The command's error, if any, is rethrown after the shutdown; a failure while shutting down is rethrown when
    /// the command itself succeeded.
    ///
    /// A command that shuts down by itself on the group's graceful shutdown (`serve`: in-flight requests finish
    /// first) passes `cancelOnShutdown: false`; it is then not cancelled, and the engines close after it returns.
    package func run(
        withServices: Bool = true, cancelOnShutdown: Bool = true, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        // Each service is named here: the configuration's default name is `"\(service)"`, which walks the service's
        // stored properties by reflection (the whole context), a few milliseconds of every command's start.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if withServices {
            for module in modules {
                for service in try module.services(in: self) {
                    services.append(
                        .init(
                            service: service, successTerminationBehavior: .gracefullyShutdownGroup,
                            failureTerminationBehavior: .gracefullyShutdownGroup,
                            serviceName: _typeName(type(of: service), qualified: false)))
                }
            }
        }
        services.append(
            .init(
                service: ResourcesService(resources: resources), successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "ResourcesService"))
        services.append(
            .init(
                service: CommandService(body: body, cancelOnShutdown: cancelOnShutdown),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "CommandService"))
        var quiet = logger
        if quiet.logLevel > .debug { quiet.logLevel = .error }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: quiet))
        try await group.run()
    }
}

/// The command body as a service: it ends the group when it returns; a graceful shutdown cancels it.
struct CommandService: Service {
    let body: @Sendable () async throws -> Void
    let cancelOnShutdown: Bool

    func run() async throws {
        guard cancelOnShutdown else { return try await body() }
        do {
            try await cancelWhenGracefulShutdown {
                try await body()
            }
        } catch is CancellationError {
            // Stopped by SIGINT/SIGTERM: a clean end, not a failure.
        }
    }
}

/// Closes the context's engines once the group shuts down gracefully.
struct ResourcesService: Service {
    let resources: ContextResources

    func run() async throws {
        try? await gracefulShutdown()
        try await resources.closeAll()
    }
}
