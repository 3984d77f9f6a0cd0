public import Foundation
public import SuiteCore
import SuitePluginKit
import Yams

/// Builds the ``SuiteConfiguration`` from a file (YAML or JSON), then `SUITE_…` environment variables, then flags.
///
/// The file is `--config PATH` if given, else `SUITE_CONFIG`, else `./suite.yaml`, else
/// `$XDG_CONFIG_HOME/suite/suite.yaml` (`~/.config/suite/suite.yaml`); with none, every default applies.
/// Unknown keys and wrong types are errors naming the key, the file and the line.
public struct ConfigurationLoader: Sendable {
    /// Values given on the command line; they win over the file and the environment.
    public struct Overrides: Sendable, Hashable {
        public var configFile: String?
        public var dataDirectory: String?
        public var logLevel: String?
        public init(configFile: String? = nil, dataDirectory: String? = nil, logLevel: String? = nil) {
            self.configFile = configFile
            self.dataDirectory = dataDirectory
            self.logLevel = logLevel
        }
    }

    /// Valid values of `log-level`.
    public static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The environment to read (`ProcessInfo`'s by default).
    public var environment: [String: String]
    /// The directory relative paths are resolved against.
    public var currentDirectory: String

    /// A loader reading `environment` and resolving relative paths against `currentDirectory`.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.environment = environment
        self.currentDirectory = currentDirectory
    }

    /// The default data directory: `$XDG_DATA_HOME/suite`, i.e. `~/.local/share/suite`.
    public var defaultDataDirectory: String {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/suite" }
        return home + "/.local/share/suite"
    }

    private var home: String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }

    /// Which configuration file applies, or `nil` for none. A file named explicitly must exist.
    public func configurationFile(_ overrides: Overrides) throws -> String? {
        if let explicit = overrides.configFile ?? environment["SUITE_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let path = absolute(explicit, relativeTo: currentDirectory)
            guard FileManager.default.fileExists(atPath: path) else {
                throw SuiteError(
                    .invalidConfiguration, "configuration file \(path) does not exist",
                    hint: "check the --config path (or SUITE_CONFIG)")
            }
            return path
        }
        let local = absolute("suite.yaml", relativeTo: currentDirectory)
        if FileManager.default.fileExists(atPath: local) { return local }
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let user = xdg + "/suite/suite.yaml"
        if FileManager.default.fileExists(atPath: user) { return user }
        return nil
    }

    /// Loads the configuration: defaults, then the file, then the environment, then `overrides`.
    public func load(_ overrides: Overrides = Overrides()) throws -> SuiteConfiguration {
        var configuration = SuiteConfiguration(dataDirectory: defaultDataDirectory)
        if let file = try configurationFile(overrides) {
            try apply(file: file, to: &configuration)
        }
        try applyEnvironment(to: &configuration)
        if let dataDirectory = overrides.dataDirectory {
            configuration.dataDirectory = absolute(dataDirectory, relativeTo: currentDirectory)
            configuration.sources["data-dir"] = .flag("--data-dir")
        }
        if let level = overrides.logLevel {
            try Self.checkLogLevel(level, source: "flag --log-level")
            configuration.logLevel = level
            configuration.sources["log-level"] = .flag("--log-level")
        }
        return configuration
    }

    // MARK: - File

    func apply(file: String, to configuration: inout SuiteConfiguration) throws {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw SuiteError(.invalidConfiguration, "cannot read configuration file \(file)", underlying: error)
        }
        let document = try parse(text, file: file)
        guard case .object(let root) = document.value else {
            if case .null = document.value { return }  // an empty file
            throw SuiteError(
                .invalidConfiguration,
                "configuration file \(file) must hold a map of keys, not \(document.value.typeDescription)",
                hint: "e.g. `data-dir: ./data`")
        }
        configuration.file = file
        let directory = (file as NSString).deletingLastPathComponent
        let source = ConfigurationSource.file(file)
        for key in root.keys.sorted() {
            let value = root[key] ?? .null
            let at = document.lines[key].map { " (line \($0))" } ?? ""
            func wrongType(_ expected: String) -> SuiteError {
                SuiteError(
                    .invalidConfiguration,
                    "key '\(key)' in \(file)\(at) must be \(expected), not \(value.typeDescription)")
            }
            switch key {
            case "data-dir":
                guard let path = value.stringValue else { throw wrongType("a string") }
                configuration.dataDirectory = absolute(path, relativeTo: directory)
            case "plugin-path":
                guard let paths = Self.strings(value) else { throw wrongType("a list of strings") }
                configuration.pluginPath = paths.map { absolute($0, relativeTo: directory) }
            case "plugins":
                guard let plugins = Self.strings(value) else { throw wrongType("a list of strings") }
                configuration.plugins = plugins.map {
                    PluginLoader.isPath($0) ? absolute($0, relativeTo: directory) : $0
                }
            case "observers":
                guard let items = value.arrayValue else { throw wrongType("a list of {engine, options} maps") }
                configuration.observers = try items.enumerated().map { index, item in
                    try Self.selection(item, key: "observers[\(index)]", file: file, at: at)
                }
            case "documents":
                var selection = value.objectValue ?? [:]
                let indexes = selection.removeValue(forKey: "indexes")
                if selection["engine"] == nil { selection["engine"] = "sqlite" }  // the embedded default
                configuration.documents = try Self.selection(
                    value.objectValue == nil ? value : .object(selection), key: key, file: file, at: at)
                if let indexes {
                    configuration.documentIndexes = try Self.indexes(indexes, file: file, at: at)
                }
            case "log-level":
                guard let level = value.stringValue else { throw wrongType("a string") }
                try Self.checkLogLevel(level, source: "key 'log-level' in \(file)\(at)")
                configuration.logLevel = level
            default:
                throw SuiteError(
                    .invalidConfiguration, "unknown key '\(key)' in \(file)\(at)",
                    hint: Self.suggestion(for: key, among: SuiteConfiguration.knownKeys))
            }
            configuration.sources[key] = source
        }
    }

    struct ParsedDocument {
        var value: JSONValue
        var lines: [String: Int]
    }

    func parse(_ text: String, file: String) throws -> ParsedDocument {
        if file.hasSuffix(".json") {
            do {
                return ParsedDocument(value: try JSONValue(parsing: text), lines: [:])
            } catch let error as SuiteError {
                throw SuiteError(
                    .invalidConfiguration, "configuration file \(file): \(error.message)", hint: error.hint)
            }
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw SuiteError(
                .invalidConfiguration, "configuration file \(file) is not valid YAML: \(error)",
                hint: "YAML uses `key: value` lines; lists are `- item` or `[a, b]`", underlying: error)
        }
        guard let node else { return ParsedDocument(value: .null, lines: [:]) }
        var lines: [String: Int] = [:]
        if case .mapping(let mapping) = node {
            for (key, _) in mapping {
                if let name = key.string, let line = key.mark?.line { lines[name] = line }
            }
        }
        return ParsedDocument(value: try Self.json(from: node, file: file), lines: lines)
    }

    static func json(from node: Node, file: String) throws -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.description) {
            case .null: return .null
            case .bool: return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int: return node.int.map { .int(Int64($0)) } ?? .string(scalar.string)
            case .float: return node.float.map(JSONValue.double) ?? .string(scalar.string)
            default: return .string(scalar.string)
            }
        case .sequence(let sequence):
            return .array(try sequence.map { try json(from: $0, file: file) })
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping {
                guard let name = key.string else {
                    throw SuiteError(.invalidConfiguration, "configuration file \(file) has a key that is not a string")
                }
                object[name] = try json(from: value, file: file)
            }
            return .object(object)
        case .alias:
            throw SuiteError(
                .invalidConfiguration, "configuration file \(file) uses a YAML alias, which Suite does not support")
        }
    }

    static func selection(_ value: JSONValue, key: String, file: String, at: String) throws -> EngineSelection {
        guard let object = value.objectValue else {
            throw SuiteError(
                .invalidConfiguration,
                "key '\(key)' in \(file)\(at) must be a map {engine: NAME, options: {…}}, "
                    + "not \(value.typeDescription)")
        }
        for member in object.keys where member != "engine" && member != "options" {
            throw SuiteError(
                .invalidConfiguration, "unknown key '\(key).\(member)' in \(file)\(at)",
                hint: "an engine selection has only `engine` and `options`")
        }
        guard let engine = object["engine"]?.stringValue, !engine.isEmpty else {
            throw SuiteError(
                .invalidConfiguration, "key '\(key).engine' in \(file)\(at) must be a non-empty string",
                hint: "name the engine, e.g. {engine: eventlog, options: {path: events.jsonl}}")
        }
        let options = object["options"] ?? .object([:])
        guard options.objectValue != nil else {
            throw SuiteError(
                .invalidConfiguration,
                "key '\(key).options' in \(file)\(at) must be a map, not \(options.typeDescription)")
        }
        return EngineSelection(engine: engine, options: options)
    }

    /// Checks `documents.indexes`: a list of `{collection: ID, fields: [FIELD[:asc|desc|contains], …], group: BOOL}`.
    static func indexes(_ value: JSONValue, file: String, at: String) throws -> [JSONValue] {
        let hint = "e.g. indexes: [{collection: users, fields: [city, \"points:desc\"]}]"
        guard let items = value.arrayValue else {
            throw SuiteError(
                .invalidConfiguration,
                "key 'documents.indexes' in \(file)\(at) must be a list, not \(value.typeDescription)", hint: hint)
        }
        for (index, item) in items.enumerated() {
            let key = "documents.indexes[\(index)]"
            guard let object = item.objectValue else {
                throw SuiteError(.invalidConfiguration, "key '\(key)' in \(file)\(at) must be a map", hint: hint)
            }
            for member in object.keys where !["collection", "fields", "group"].contains(member) {
                throw SuiteError(
                    .invalidConfiguration, "unknown key '\(key).\(member)' in \(file)\(at)",
                    hint: "an index has collection, fields and group")
            }
            guard object["collection"]?.stringValue != nil, let fields = object["fields"].flatMap(strings),
                !fields.isEmpty
            else {
                throw SuiteError(
                    .invalidConfiguration,
                    "key '\(key)' in \(file)\(at) needs a 'collection' string and a non-empty 'fields' list of strings",
                    hint: hint)
            }
            if let group = object["group"], group.boolValue == nil {
                throw SuiteError(.invalidConfiguration, "key '\(key).group' in \(file)\(at) must be true or false")
            }
        }
        return items
    }

    // MARK: - Environment

    func applyEnvironment(to configuration: inout SuiteConfiguration) throws {
        if let value = environment["SUITE_DATA_DIR"], !value.isEmpty {
            configuration.dataDirectory = absolute(value, relativeTo: currentDirectory)
            configuration.sources["data-dir"] = .environment("SUITE_DATA_DIR")
        }
        if let value = environment["SUITE_PLUGINS"] {
            configuration.plugins = value.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            configuration.sources["plugins"] = .environment("SUITE_PLUGINS")
        }
        if let value = environment["SUITE_LOG_LEVEL"], !value.isEmpty {
            try Self.checkLogLevel(value, source: "SUITE_LOG_LEVEL")
            configuration.logLevel = value
            configuration.sources["log-level"] = .environment("SUITE_LOG_LEVEL")
        }
        if let value = environment["SUITE_DOCUMENTS_ENGINE"], !value.isEmpty {
            configuration.documents.engine = value
            configuration.sources["documents"] = .environment("SUITE_DOCUMENTS_ENGINE")
        }
    }

    /// Directories listed in `SUITE_PLUGIN_PATH` (colon-separated), searched after the configuration's `plugin-path`.
    public var environmentPluginPath: [String] {
        (environment["SUITE_PLUGIN_PATH"] ?? "").split(separator: ":").map {
            absolute(String($0), relativeTo: currentDirectory)
        }
    }

    // MARK: - Helpers

    static func checkLogLevel(_ level: String, source: String) throws {
        guard logLevels.contains(level) else {
            throw SuiteError(
                .invalidConfiguration, "\(source): unknown log level '\(level)'",
                hint: "use one of " + logLevels.joined(separator: ", "))
        }
    }

    static func strings(_ value: JSONValue) -> [String]? {
        guard let items = value.arrayValue else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }

    static func suggestion(for key: String, among known: [String]) -> String {
        let normalized = key.lowercased().replacingOccurrences(of: "_", with: "-")
        if let match = known.first(where: { $0 == normalized || $0 == normalized + "s" || $0 + "s" == normalized }) {
            return "did you mean '\(match)'? Known keys: " + known.joined(separator: ", ")
        }
        return "known keys: " + known.joined(separator: ", ")
    }

    func absolute(_ path: String, relativeTo directory: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((directory as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }
}
