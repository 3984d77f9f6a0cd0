package import ServiceLifecycle
package import SuiteCore

/// How one module describes itself to the host, once: its configuration section (decoded once into its typed
/// ``Settings``), its engines, its status and its background services.
///
/// The host iterates over the registered modules (``SuiteModules/all``): loading the configuration asks each module to
/// decode its section, `suite status` asks each for its status, and every command runs each module's services. Adding a
/// module adds its files and one line in that list; no `switch` in SuiteHost or SuiteCore changes, and the module needs
/// no command of its own.
///
/// ```swift
/// struct GreetingModule: SuiteModule {
///     var name: String { "Greeting" }
///     var configurationKey: String { "greeting" }
///     func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> String {
///         let object = try section.object()
///         try section.checkKeys(object, known: ["text"])
///         return object["text"]?.stringValue ?? "hello"
///     }
///     func status(_ text: String, in context: SuiteContext) async -> ModuleStatus {
///         ModuleStatus(details: [.init("text", text)])
///     }
/// }
/// ```
package protocol SuiteModule: Sendable {
    /// The section, decoded.
    associatedtype Settings: Sendable
    /// The module on every default (registered modules may carry more, e.g. an engine a test adds).
    init()
    /// The module's name as people see it in `suite status`, e.g. `Documents`.
    var name: String { get }
    /// The top-level configuration key of its section, e.g. `documents`.
    var configurationKey: String { get }
    /// The engines built in, by configuration name; the first is the default. Empty when the module has no engine
    /// (then `SUITE_<KEY>_ENGINE` does not apply).
    var builtInEngines: [String] { get }
    /// Decodes and checks the section when the configuration loads, so a typo fails every command at once with the
    /// key, the file, the line and a did-you-mean. An absent section (`value` null) means every default. The context
    /// holds the result (``SuiteContext/settings(_:)``); nothing decodes the section again.
    func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings
    /// What `suite status` shows: engine, data file or server, health.
    func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus
    /// Background work the context runs while a command runs, shut down gracefully when it ends
    /// (swift-service-lifecycle services, e.g. an observer hub).
    func services(_ settings: Settings, in context: SuiteContext) throws -> [any Service]
}

extension SuiteModule {
    package var builtInEngines: [String] { [] }
    package func services(_ settings: Settings, in context: SuiteContext) throws -> [any Service] { [] }

    /// The section of `configuration` decoded, type-erased (for the loader, which holds every module's).
    func decode(_ configuration: SuiteConfiguration) throws -> any Sendable {
        try settings(configuration.section(configurationKey), in: configuration)
    }

    /// The module's status in `context`; a section that does not decode is an unhealthy line, not a failure.
    func status(in context: SuiteContext) async -> ModuleStatus {
        guard let settings = try? context.settings(self) else {
            return ModuleStatus(engine: "?", health: "invalid configuration", isHealthy: false)
        }
        return await status(settings, in: context)
    }

    /// The module's services in `context`.
    func services(in context: SuiteContext) throws -> [any Service] {
        try services(context.settings(self), in: context)
    }
}

/// Every module's section decoded by ``ConfigurationLoader``, by configuration key, handed to the ``SuiteContext``.
package struct ModuleSettings: Sendable {
    var values: [String: any Sendable]

    /// No section decoded yet (the context decodes each on first use).
    package init() { values = [:] }

    init(values: [String: any Sendable]) { self.values = values }
}

/// One module's line in `suite status`.
package struct ModuleStatus: Sendable, Hashable {
    /// The engine in use (`-` when the module has none).
    package var engine: String
    /// Its data file, directory or server.
    package var location: String
    /// `ok`, or what needs attention (pending work, the last error).
    package var health: String
    /// Whether the module is usable as configured.
    package var isHealthy: Bool
    /// Further facts, in order (`pending index operations`: `12`).
    package var details: [Detail]

    /// A named fact about a module.
    package struct Detail: Sendable, Hashable {
        /// What the value is.
        package var label: String
        /// The value.
        package var value: String
        /// Creates a detail.
        package init(_ label: String, _ value: String) {
            self.label = label
            self.value = value
        }
    }

    /// Creates a status.
    package init(
        engine: String = "-", location: String = "-", health: String = "ok", isHealthy: Bool = true,
        details: [Detail] = []
    ) {
        self.engine = engine
        self.location = location
        self.health = health
        self.isHealthy = isHealthy
        self.details = details
    }
}
