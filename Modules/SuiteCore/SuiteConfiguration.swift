/// Which engine a module (or an observer) uses, and that engine's options.
///
/// In a configuration file: `documents: {engine: sqlite, options: {path: docs.sqlite}}`.
public struct EngineSelection: Sendable, Hashable, Codable {
    /// The engine's registered name (`sqlite`, `memory`, or one a plugin provides).
    public var engine: String
    /// The engine's options, passed to its factory as a JSON object.
    public var options: JSONValue

    /// Selects `engine` with `options`.
    public init(engine: String, options: JSONValue = .object([:])) {
        self.engine = engine
        self.options = options
    }
}

/// Where a configuration value came from, shown by `suite config show`.
public enum ConfigurationSource: Sendable, Hashable, CustomStringConvertible {
    /// Suite's built-in default.
    case defaultValue
    /// A configuration file.
    case file(String)
    /// An environment variable.
    case environment(String)
    /// A command-line flag.
    case flag(String)

    public var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path): "file \(path)"
        case .environment(let name): "env \(name)"
        case .flag(let name): "flag \(name)"
        }
    }
}

/// Suite's resolved configuration: file, then environment, then flags, each overriding the one before.
public struct SuiteConfiguration: Sendable, Hashable {
    /// Keys a configuration file may contain.
    public static let knownKeys = ["data-dir", "plugin-path", "plugins", "observers", "documents", "log-level"]

    /// The directory holding every embedded store (`$XDG_DATA_HOME/suite` by default).
    public var dataDirectory: String
    /// Directories searched for plugins named without a path.
    public var pluginPath: [String]
    /// Plugins to load, by name (`EventLog` → `libEventLog.so`) or by path.
    public var plugins: [String]
    /// Observer engines to attach to the bus.
    public var observers: [EngineSelection]
    /// The Documents module's engine (`sqlite` by default).
    public var documents: EngineSelection
    /// Composite indexes to declare in the Documents store, each `{collection, fields: ["a", "b:desc"], group}`,
    /// already checked for shape by the loader.
    public var documentIndexes: [JSONValue]
    /// The log level (`trace` … `critical`).
    public var logLevel: String
    /// The configuration file read, if any.
    public var file: String?
    /// Where each key's value came from.
    public var sources: [String: ConfigurationSource]

    /// A configuration with every default, data under `dataDirectory`.
    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        self.pluginPath = []
        self.plugins = []
        self.observers = []
        self.documents = EngineSelection(engine: "sqlite")
        self.documentIndexes = []
        self.logLevel = "warning"
        self.file = nil
        self.sources = Dictionary(uniqueKeysWithValues: Self.knownKeys.map { ($0, .defaultValue) })
    }
}
