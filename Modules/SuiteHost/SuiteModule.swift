public import ServiceLifecycle
public import SuiteCore

/// How one module describes itself to the host, once: its configuration section, its engines, its plugin engine kind,
/// its status and its background services.
///
/// The host iterates over the registered modules: loading the configuration asks each module to check its section,
/// `suite status` asks each for its status, and every command runs each module's services. Adding a module adds a
/// conformance and a command file; no `switch` in SuiteHost or SuiteCore changes.
///
/// ```swift
/// struct CacheModule: SuiteModule {
///     var name: String { "Cache" }
///     var configurationKey: String { "cache" }
///     func validate(_ section: ConfigurationSection) throws {
///         try section.checkKeys(try section.object(), known: ["engine", "options"])
///     }
///     func status(in context: SuiteContext) async -> ModuleStatus {
///         ModuleStatus(engine: "sqlite", location: context.configuration.dataDirectory + "/cache.sqlite")
///     }
/// }
/// ```
public protocol SuiteModule: Sendable {
    /// The module's name as people see it in `suite status`, e.g. `Documents`.
    var name: String { get }
    /// The top-level configuration key of its section, e.g. `documents`.
    var configurationKey: String { get }
    /// The engines built in, by configuration name; the first is the default. Empty when the module has no engine.
    var builtInEngines: [String] { get }
    /// The plugin engine kind (``SuitePluginKit/EngineKind``) that can provide this module's engine, if any.
    var pluginKind: String? { get }
    /// Checks the section when the configuration loads, so a typo fails every command at once with the key, the
    /// file, the line and a did-you-mean. An absent section (`value` null) means every default.
    func validate(_ section: ConfigurationSection) throws
    /// What `suite status` shows: engine, data file or server, health.
    func status(in context: SuiteContext) async -> ModuleStatus
    /// Background work the context runs while a command runs, shut down gracefully when it ends
    /// (swift-service-lifecycle services, e.g. an observer hub).
    func services(in context: SuiteContext) throws -> [any Service]
}

extension SuiteModule {
    public var builtInEngines: [String] { [] }
    public var pluginKind: String? { nil }
    public func services(in context: SuiteContext) throws -> [any Service] { [] }
}

/// One module's line in `suite status`.
public struct ModuleStatus: Sendable, Hashable {
    /// The engine in use (`-` when the module has none).
    public var engine: String
    /// Its data file, directory or server.
    public var location: String
    /// `ok`, or what needs attention (pending work, the last error).
    public var health: String
    /// Whether the module is usable as configured.
    public var isHealthy: Bool
    /// Further facts, in order (`pending index operations`: `12`).
    public var details: [Detail]

    /// A named fact about a module.
    public struct Detail: Sendable, Hashable {
        /// What the value is.
        public var label: String
        /// The value.
        public var value: String
        /// Creates a detail.
        public init(_ label: String, _ value: String) {
            self.label = label
            self.value = value
        }
    }

    /// Creates a status.
    public init(
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
