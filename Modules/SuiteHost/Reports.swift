package import SuiteCore
package import SuitePluginKit

/// What `suite status` reports: every registered module with its engine, data file or server and health, then the
/// bus and the plugins.
package struct StatusReport: Sendable {
    /// One module's line.
    package struct Module: Sendable {
        /// The module's name.
        package var name: String
        /// Its status.
        package var status: ModuleStatus
    }
    package var version: String
    package var dataDirectory: String
    package var configurationFile: String?
    package var modules: [Module]
    package var plugins: [PluginLoadResult]
    /// Events dropped by this process's bus (full stream buffers).
    package var busDrops: Int

    /// Gathers the status of `context`, asking every module.
    package init(context: SuiteContext) async {
        let configuration = context.configuration
        version = SuiteContext.version
        dataDirectory = configuration.dataDirectory
        configurationFile = configuration.file
        plugins = context.plugins.results
        busDrops = context.bus.droppedEventCount
        var modules: [Module] = []
        for module in context.modules {
            modules.append(Module(name: module.name, status: await module.status(in: context)))
        }
        self.modules = modules
    }

    /// Whether every configured plugin loaded and every module is usable.
    package var isHealthy: Bool {
        plugins.allSatisfy { $0.error == nil } && modules.allSatisfy(\.status.isHealthy)
    }

    /// The report as JSON for scripts.
    package var json: JSONValue {
        .object([
            "version": .string(version),
            "dataDirectory": .string(dataDirectory),
            "configurationFile": configurationFile.map(JSONValue.string) ?? .null,
            "modules": .array(
                modules.map { module in
                    .object([
                        "name": .string(module.name), "engine": .string(module.status.engine),
                        "location": .string(module.status.location), "health": .string(module.status.health),
                        "healthy": .bool(module.status.isHealthy),
                        "details": .object(
                            Dictionary(
                                module.status.details.map { ($0.label, JSONValue.string($0.value)) },
                                uniquingKeysWith: { first, _ in first })),
                    ])
                }),
            "bus": .object(["dropped": .int(Int64(busDrops))]),
            "plugins": .array(plugins.map(PluginReport.json(for:))),
            "healthy": .bool(isHealthy),
        ])
    }

    /// The report as text for people.
    package func render() -> String {
        var lines = [
            "Suite \(version)",
            "data directory  \(dataDirectory)",
            "configuration   \(configurationFile ?? "none (embedded defaults)")",
            "",
        ]
        var table = TextTable(["MODULE", "ENGINE", "DATA", "HEALTH"])
        for module in modules {
            table.append([module.name, module.status.engine, module.status.location, module.status.health])
            for detail in module.status.details { table.append(["", "", "  \(detail.label): \(detail.value)", ""]) }
        }
        lines.append(table.render())
        lines.append("")
        lines.append(
            "event bus       in-process, bounded; \(busDrops) event(s) dropped in this process "
                + "(consumers that must see every change read the change log)")
        lines.append("plugin ABI      v\(LoadedPlugin.supportedABIVersion)")
        if plugins.isEmpty {
            lines.append("plugins         none configured")
        } else {
            lines.append("")
            lines.append(PluginReport.table(plugins).render())
        }
        return lines.joined(separator: "\n")
    }
}

/// Rendering of plugin lists and descriptors.
package enum PluginReport {
    /// A table of load results: plugin, version, engines or the error.
    package static func table(_ results: [PluginLoadResult]) -> TextTable {
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
    package static func json(for result: PluginLoadResult) -> JSONValue {
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
    package static func json(for plugin: LoadedPlugin) -> JSONValue {
        .object([
            "name": .string(plugin.name),
            "version": .string(plugin.version),
            "abiVersion": .int(Int64(plugin.abiVersion)),
            "path": .string(plugin.path),
            "engines": .array(plugin.engines.map { .object(["kind": .string($0.kind), "name": .string($0.name)]) }),
        ])
    }

    /// A loaded plugin's descriptor for people.
    package static func render(_ plugin: LoadedPlugin) -> String {
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
package enum ConfigurationReport {
    /// Each key's value and where it came from, as JSON.
    package static func json(_ configuration: SuiteConfiguration) -> JSONValue {
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
    package static func render(_ configuration: SuiteConfiguration) -> String {
        var table = TextTable(["KEY", "VALUE", "SOURCE"])
        for (key, value) in values(configuration) {
            table.append([key, value.jsonString, configuration.sources[key]?.description ?? "default"])
        }
        return "configuration file: \(configuration.file ?? "none")\n\n" + table.render()
    }

    static func values(_ configuration: SuiteConfiguration) -> [(String, JSONValue)] {
        var values: [(String, JSONValue)] = [
            ("data-dir", .string(configuration.dataDirectory)),
            ("plugin-path", .array(configuration.pluginPath.map(JSONValue.string))),
            ("plugins", .array(configuration.plugins.map(JSONValue.string))),
            ("log-level", .string(configuration.logLevel)),
            ("plugin-timeout", .double(configuration.pluginTimeout)),
        ]
        for key in configuration.sections.keys.sorted() {
            values.append((key, configuration.sections[key]?.value ?? .null))
        }
        return values
    }
}
