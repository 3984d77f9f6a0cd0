import Foundation
package import SuiteCore
import SuitePluginKit
import Yams

/// Builds the ``SuiteConfiguration`` from a file (YAML or JSON), then `SUITE_…` environment variables, then flags.
///
/// The file is `--config PATH` if given, else `SUITE_CONFIG`, else `./suite.yaml`, else
/// `$XDG_CONFIG_HOME/suite/suite.yaml` (`~/.config/suite/suite.yaml`); with none, every default applies.
/// The host's own keys (`data-dir`, `plugin-path`, `plugins`, `log-level`, `plugin-timeout`) are read here; every
/// other top-level key must be a registered module's section, which that module checks. Unknown keys and wrong types
/// are errors naming the key, the file, the line and the closest known key.
///
/// One rule for paths: a relative path in the file — `data-dir`, `plugin-path`, a plugin path, and every path
/// option of every engine (``ConfigurationSection/isPathOption(_:)``: `path`, `file`, `dir`, `*-path`, …) —
/// resolves against the file's folder; one from the environment or a flag against the current directory.
package struct ConfigurationLoader: Sendable {
    /// Values given on the command line; they win over the file and the environment.
    package struct Overrides: Sendable, Hashable {
        package var configFile: String?
        package var dataDirectory: String?
        package var logLevel: String?
        /// Keys of module sections set by flags (`--remote` sets `sync.remote`): by section, key → value, where
        /// `null` removes the key. Applied before the sections are decoded.
        package var sectionKeys: [String: [String: JSONValue]]
        /// The flag named as the source of ``sectionKeys``.
        package var sectionFlag: String
        package init(
            configFile: String? = nil, dataDirectory: String? = nil, logLevel: String? = nil,
            sectionKeys: [String: [String: JSONValue]] = [:], sectionFlag: String = "flag"
        ) {
            self.configFile = configFile
            self.dataDirectory = dataDirectory
            self.logLevel = logLevel
            self.sectionKeys = sectionKeys
            self.sectionFlag = sectionFlag
        }
    }

    /// Valid values of `log-level`.
    package static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The modules whose sections the configuration may hold.
    package var modules: [any SuiteModule]
    /// The environment to read (`ProcessInfo`'s by default).
    package var environment: [String: String]
    /// The directory relative paths are resolved against.
    package var currentDirectory: String

    /// A loader for `modules`, reading `environment` and resolving relative paths against `currentDirectory`.
    package init(
        modules: [any SuiteModule],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) {
        self.modules = modules
        self.environment = environment
        self.currentDirectory = currentDirectory
    }

    /// Every key a configuration file may hold: the host's, then each module's section.
    package var knownKeys: [String] { SuiteConfiguration.hostKeys + modules.map(\.configurationKey) }

    /// The default data directory: `$XDG_DATA_HOME/suite`, i.e. `~/.local/share/suite`.
    package var defaultDataDirectory: String {
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/suite" }
        return home + "/.local/share/suite"
    }

    private var home: String {
        environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }

    /// Which configuration file applies, or `nil` for none. A file named explicitly must exist.
    package func configurationFile(_ overrides: Overrides) throws -> String? {
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

    /// Loads the configuration: defaults, then the file, then the environment, then `overrides`; then every module
    /// checks its section.
    package func load(_ overrides: Overrides = Overrides()) throws -> SuiteConfiguration {
        try loadSettings(overrides).configuration
    }

    /// Loads the configuration as ``load(_:)`` does, and returns every module's section decoded (for the
    /// ``SuiteContext``, so that no section is decoded twice).
    package func loadSettings(_ overrides: Overrides = Overrides()) throws -> (
        configuration: SuiteConfiguration, settings: ModuleSettings
    ) {
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
        for (key, values) in overrides.sectionKeys.sorted(by: { $0.key < $1.key }) {
            var section = configuration.section(key)
            var object = section.value.objectValue ?? [:]
            for (name, value) in values { object[name] = value == .null ? nil : value }
            section.value = .object(object)
            section.source = .flag(overrides.sectionFlag)
            configuration.sections[key] = section
        }
        var decoded: [String: any Sendable] = [:]
        for module in modules {
            decoded[module.configurationKey] = try module.decode(configuration)
        }
        return (configuration, ModuleSettings(values: decoded))
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
            case "log-level":
                guard let level = value.stringValue else { throw wrongType("a string") }
                try Self.checkLogLevel(level, source: "key 'log-level' in \(file)\(at)")
                configuration.logLevel = level
            case "plugin-timeout":
                guard let seconds = value.numberValue else {
                    throw wrongType("a number of seconds")
                }
                try Self.checkTimeout(seconds, source: "key 'plugin-timeout' in \(file)\(at)")
                configuration.pluginTimeout = seconds
            default:
                guard modules.contains(where: { $0.configurationKey == key }) else {
                    throw SuiteError(
                        .invalidConfiguration, "unknown key '\(key)' in \(file)\(at)",
                        hint: Suggestion.didYouMean(key, among: knownKeys, what: "keys"))
                }
                configuration.sections[key] = ConfigurationSection(
                    key: key, value: resolvingPathOptions(value, relativeTo: directory), source: source, file: file,
                    lines: document.lines.filter {
                        $0.key == key || $0.key.hasPrefix(key + ".") || $0.key.hasPrefix(key + "[")
                    })
            }
            configuration.sources[key] = source
        }
    }

    /// `value` with every path option (in any `options` map, at any depth) made absolute against `directory`.
    func resolvingPathOptions(_ value: JSONValue, relativeTo directory: String, inOptions: Bool = false) -> JSONValue {
        switch value {
        case .object(let object):
            var resolved: [String: JSONValue] = [:]
            for (key, member) in object {
                if inOptions, ConfigurationSection.isPathOption(key), let path = member.stringValue, !path.isEmpty {
                    resolved[key] = .string(absolute(path, relativeTo: directory))
                } else {
                    resolved[key] = resolvingPathOptions(
                        member, relativeTo: directory, inOptions: inOptions || key == "options")
                }
            }
            return .object(resolved)
        case .array(let items):
            return .array(items.map { resolvingPathOptions($0, relativeTo: directory, inOptions: inOptions) })
        default:
            return value
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
        Self.recordLines(node, path: nil, into: &lines)
        return ParsedDocument(value: try Self.json(from: node, file: file), lines: lines)
    }

    /// Records the line of every key, by dotted path (`documents.options.path`, `observers[0].engine`).
    static func recordLines(_ node: Node, path: String?, into lines: inout [String: Int]) {
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                guard let name = key.string else { continue }
                let keyPath = path.map { "\($0).\(name)" } ?? name
                if let line = key.mark?.line { lines[keyPath] = line }
                recordLines(value, path: keyPath, into: &lines)
            }
        case .sequence(let sequence):
            for (index, item) in sequence.enumerated() {
                let itemPath = "\(path ?? "")[\(index)]"
                if let line = item.mark?.line { lines[itemPath] = line }
                recordLines(item, path: itemPath, into: &lines)
            }
        default:
            break
        }
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
        if let value = environment["SUITE_PLUGIN_TIMEOUT"], !value.isEmpty {
            guard let seconds = Double(value) else {
                throw SuiteError(
                    .invalidConfiguration, "SUITE_PLUGIN_TIMEOUT must be a number of seconds, not '\(value)'")
            }
            try Self.checkTimeout(seconds, source: "SUITE_PLUGIN_TIMEOUT")
            configuration.pluginTimeout = seconds
            configuration.sources["plugin-timeout"] = .environment("SUITE_PLUGIN_TIMEOUT")
        }
        // SUITE_<MODULE>_ENGINE picks the engine of any module that has engines (its options are kept only when
        // the engine stays the same).
        for module in modules where !module.builtInEngines.isEmpty {
            let name =
                "SUITE_" + module.configurationKey.uppercased().replacingOccurrences(of: "-", with: "_")
                + "_ENGINE"
            guard let engine = environment[name], !engine.isEmpty else { continue }
            var section = configuration.section(module.configurationKey)
            var object = section.value.objectValue ?? [:]
            if object["engine"]?.stringValue != engine { object["options"] = nil }
            object["engine"] = .string(engine)
            section.value = .object(object)
            section.source = .environment(name)
            configuration.sections[module.configurationKey] = section
            configuration.sources[module.configurationKey] = .environment(name)
        }
    }

    /// Directories listed in `SUITE_PLUGIN_PATH` (colon-separated), searched after the configuration's `plugin-path`.
    package var environmentPluginPath: [String] {
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

    static func checkTimeout(_ seconds: Double, source: String) throws {
        guard seconds > 0, seconds <= 86_400 else {
            throw SuiteError(
                .invalidConfiguration,
                "\(source): a plugin timeout must be between 0 and 86400 seconds, not \(seconds)",
                hint: "e.g. plugin-timeout: 30")
        }
    }

    /// A path a module's section names outside `options` (`rules-file`, `token-file`): absolute, or relative to the
    /// configuration file's folder (the current directory without one), like every other path in the file.
    package static func path(_ file: String, relativeToConfiguration configurationFile: String?) -> String {
        let directory =
            configurationFile.map { ($0 as NSString).deletingLastPathComponent }
            ?? FileManager.default.currentDirectoryPath
        let expanded = (file as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((directory as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }

    func absolute(_ path: String, relativeTo directory: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        return ((directory as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }
}
