public import SuiteCore
public import SuitePluginKit

/// What `suite status` reports.
public struct StatusReport: Sendable {
    /// One module's line.
    public struct Module: Sendable {
        public var name: String
        public var engine: String
        public var detail: String
    }
    public var version: String
    public var dataDirectory: String
    public var configurationFile: String?
    public var modules: [Module]
    public var plugins: [PluginLoadResult]
    public var observers: [EngineSelection]

    /// Gathers the status of `context`.
    public init(context: SuiteContext) {
        let configuration = context.configuration
        version = SuiteContext.version
        dataDirectory = configuration.dataDirectory
        configurationFile = configuration.file
        plugins = context.plugins.results
        observers = configuration.observers
        modules = [
            Module(
                name: "SuiteCore", engine: "-",
                detail: "event bus ready, \(configuration.observers.count) observer(s) configured"),
            Module(name: "SuitePluginKit", engine: "-", detail: "plugin ABI v\(LoadedPlugin.supportedABIVersion)"),
            Module(
                name: "Documents", engine: configuration.documents.engine,
                detail: configuration.documents.engine == "sqlite"
                    ? "\(configuration.dataDirectory)/documents.sqlite" : "engine options from the configuration"),
        ]
    }

    /// Whether every configured plugin loaded.
    public var isHealthy: Bool { plugins.allSatisfy { $0.error == nil } }

    /// The report as JSON for scripts.
    public var json: JSONValue {
        .object([
            "version": .string(version),
            "dataDirectory": .string(dataDirectory),
            "configurationFile": configurationFile.map(JSONValue.string) ?? .null,
            "modules": .array(
                modules.map {
                    .object(["name": .string($0.name), "engine": .string($0.engine), "detail": .string($0.detail)])
                }),
            "plugins": .array(plugins.map(PluginReport.json(for:))),
            "observers": .array(observers.map { .object(["engine": .string($0.engine), "options": $0.options]) }),
            "healthy": .bool(isHealthy),
        ])
    }

    /// The report as text for people.
    public func render() -> String {
        var lines = [
            "Suite \(version)",
            "data directory  \(dataDirectory)",
            "configuration   \(configurationFile ?? "none (embedded defaults)")",
            "",
        ]
        var table = TextTable(["MODULE", "ENGINE", "STATUS"])
        for module in modules { table.append([module.name, module.engine, module.detail]) }
        lines.append(table.render())
        lines.append("")
        if plugins.isEmpty {
            lines.append("plugins         none configured")
        } else {
            lines.append(PluginReport.table(plugins).render())
        }
        return lines.joined(separator: "\n")
    }
}

/// Rendering of plugin lists and descriptors.
public enum PluginReport {
    /// A table of load results: plugin, version, engines or the error.
    public static func table(_ results: [PluginLoadResult]) -> TextTable {
        var table = TextTable(["PLUGIN", "VERSION", "ENGINES", "FILE / ERROR"])
        for result in results {
            if let plugin = result.plugin {
                table.append([
                    plugin.name, plugin.version, plugin.engines.map(\.description).joined(separator: ", "), plugin.path,
                ])
            } else {
                table.append([result.reference, "-", "-", "error: " + (result.error?.message ?? "unknown")])
            }
        }
        return table
    }

    /// One load result as JSON.
    public static func json(for result: PluginLoadResult) -> JSONValue {
        var object: [String: JSONValue] = ["reference": .string(result.reference)]
        if let plugin = result.plugin {
            object["plugin"] = json(for: plugin)
        }
        if let error = result.error {
            object["error"] = .object([
                "code": .string(error.code.description), "message": .string(error.message),
                "hint": error.hint.map(JSONValue.string) ?? .null,
            ])
        }
        return .object(object)
    }

    /// A loaded plugin's descriptor as JSON.
    public static func json(for plugin: LoadedPlugin) -> JSONValue {
        .object([
            "name": .string(plugin.name),
            "version": .string(plugin.version),
            "abiVersion": .int(Int64(plugin.abiVersion)),
            "path": .string(plugin.path),
            "engines": .array(plugin.engines.map { .object(["kind": .string($0.kind), "name": .string($0.name)]) }),
        ])
    }

    /// A loaded plugin's descriptor for people.
    public static func render(_ plugin: LoadedPlugin) -> String {
        var lines = [
            "plugin       \(plugin.name) \(plugin.version)",
            "file         \(plugin.path)",
            "ABI version  \(plugin.abiVersion)",
            "",
        ]
        var table = TextTable(["KIND", "ENGINE"])
        for engine in plugin.engines { table.append([engine.kind, engine.name]) }
        lines.append(table.render())
        return lines.joined(separator: "\n")
    }
}

/// Rendering of `suite config show`.
public enum ConfigurationReport {
    /// Each key's value and where it came from, as JSON.
    public static func json(_ configuration: SuiteConfiguration) -> JSONValue {
        let values = values(configuration)
        return .object([
            "file": configuration.file.map(JSONValue.string) ?? .null,
            "values": .object(
                Dictionary(
                    uniqueKeysWithValues: values.map { key, value in
                        (
                            key,
                            JSONValue.object([
                                "value": value, "source": .string(configuration.sources[key]?.description ?? "default"),
                            ])
                        )
                    })),
        ])
    }

    /// A table of keys, values and sources for people.
    public static func render(_ configuration: SuiteConfiguration) -> String {
        var table = TextTable(["KEY", "VALUE", "SOURCE"])
        for (key, value) in values(configuration) {
            table.append([key, value.jsonString, configuration.sources[key]?.description ?? "default"])
        }
        return "configuration file: \(configuration.file ?? "none")\n\n" + table.render()
    }

    static func values(_ configuration: SuiteConfiguration) -> [(String, JSONValue)] {
        [
            ("data-dir", .string(configuration.dataDirectory)),
            ("plugin-path", .array(configuration.pluginPath.map(JSONValue.string))),
            ("plugins", .array(configuration.plugins.map(JSONValue.string))),
            (
                "observers",
                .array(configuration.observers.map { .object(["engine": .string($0.engine), "options": $0.options]) })
            ),
            (
                "documents",
                .object(
                    [
                        "engine": .string(configuration.documents.engine), "options": configuration.documents.options,
                    ].merging(
                        configuration.documentIndexes.isEmpty ? [:] : ["indexes": .array(configuration.documentIndexes)]
                    ) {
                        $1
                    })
            ),
            ("log-level", .string(configuration.logLevel)),
        ]
    }
}
