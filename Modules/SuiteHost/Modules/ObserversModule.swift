package import ServiceLifecycle
package import SuiteCore
import SuitePluginKit

/// Observers as the host sees them: the `observers` section (a list of `{engine, options}`), engines of the
/// `observer` plugin kind, and the ``ObserverHub`` service that feeds them every bus event while a command runs.
///
/// ```yaml
/// plugins: [EventLog]
/// observers:
///   - {engine: eventlog, options: {path: events.jsonl}}   # path: relative to this file's folder
/// ```
package struct ObserversModule: SuiteModule {
    /// The observer engines: all come from plugins.
    var engines = EngineRegistry<any ObserverEngine>(
        module: "observer", descriptions: [],
        plugins: PluginEngines(kind: EngineKind.observer) { handle in PluginObserverEngine(handle: handle) })

    /// Creates the description.
    package init() {}

    package var name: String { "Observers" }
    package var configurationKey: String { "observers" }

    /// The configured observers, in order.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws
        -> [EngineSelection]
    {
        if !section.isPresent { return [] }
        guard let items = section.value.arrayValue else {
            throw section.error(
                "observers", "must be a list of {engine, options} maps, not \(section.value.typeDescription)",
                hint: "observers: [{engine: eventlog, options: {path: events.jsonl}}]")
        }
        return try items.enumerated().map { index, item in
            let key = "observers[\(index)]"
            guard let object = item.objectValue else {
                throw section.error(key, "must be a map {engine: NAME, options: {…}}, not \(item.typeDescription)")
            }
            try section.checkKeys(object, at: key, known: ["engine", "options"])
            guard object["engine"] != nil else {
                throw section.error(
                    "\(key).engine", "is missing", hint: "e.g. {engine: eventlog, options: {path: events.jsonl}}")
            }
            return try engines.configure(object, at: key, in: section).selection
        }
    }

    package func status(_ selections: [EngineSelection], in context: SuiteContext) async -> ModuleStatus {
        let missing = selections.filter { context.plugins.provider(kind: EngineKind.observer, name: $0.engine) == nil }
        return ModuleStatus(
            engine: selections.isEmpty ? "-" : selections.map(\.engine).joined(separator: ", "),
            location: selections.isEmpty ? "none configured" : "\(selections.count) observer(s) on the bus",
            health: missing.isEmpty ? "ok" : "no plugin provides " + missing.map(\.engine).joined(separator: ", "),
            isHealthy: missing.isEmpty)
    }

    package func services(_ selections: [EngineSelection], in context: SuiteContext) throws -> [any Service] {
        guard !selections.isEmpty else { return [] }
        return [try context.attachObservers(selections)]
    }
}

extension SuiteContext {
    /// Creates the given observer engines (each from the loaded plugin providing it) and attaches them to the bus.
    ///
    /// Throws ``PluginError`` if a plugin failed to load, if no loaded plugin provides a configured engine, or if a
    /// plugin refuses to create one (its own message included).
    package func attachObservers(_ selections: [EngineSelection]) throws -> ObserverHub {
        try plugins.requireAllLoaded()
        var engines: [(name: String, engine: any ObserverEngine)] = []
        for selection in selections {
            guard let plugin = plugins.provider(kind: EngineKind.observer, name: selection.engine) else {
                let available = plugins.engines(of: EngineKind.observer)
                throw PluginError(
                    .engineNotFound,
                    "no loaded plugin provides observer engine '\(selection.engine)'"
                        + (available.isEmpty ? "" : " (loaded observers: \(available.joined(separator: ", ")))"),
                    hint: configuration.plugins.isEmpty
                        ? "list the plugin that provides it under `plugins` in the configuration"
                        : Suggestion.closest(to: selection.engine, among: available).map { "did you mean '\($0)'?" }
                            ?? "check the engine name, or add the plugin that provides it to `plugins`")
            }
            let handle = try makePluginEngine(plugin, kind: EngineKind.observer, selection: selection)
            engines.append((selection.engine, PluginObserverEngine(handle: handle)))
        }
        return ObserverHub(bus: bus, engines: engines, logger: logger)
    }
}
