public import SuiteCore
public import SuitePluginKit

/// A module's engines by name: the built-in factories, then any loaded plugin providing its engine kind.
///
/// ```swift
/// let engines = EngineRegistry<any CacheStore>(
///     module: "cache", pluginKind: "cache", adapt: { handle in PluginCacheStore(handle: handle) },
///     factories: [
///         .init(name: "memory", options: ["capacity"]) { options, context in InMemoryCacheStore() },
///     ])
/// let store = try await engines.make(selection, section: section, in: context)
/// ```
public struct EngineRegistry<Engine: Sendable>: Sendable {
    /// How to make one built-in engine.
    public struct Factory: Sendable {
        /// The engine's configuration name.
        public var name: String
        /// The option keys it accepts; any other is an error naming the key.
        public var options: [String]
        /// Makes the engine from its options (path options already absolute).
        public var make: @Sendable (_ options: [String: JSONValue], _ context: SuiteContext) async throws -> Engine

        /// Describes a built-in engine.
        public init(
            name: String, options: [String],
            make: @escaping @Sendable (_ options: [String: JSONValue], _ context: SuiteContext) async throws -> Engine
        ) {
            self.name = name
            self.options = options
            self.make = make
        }
    }

    /// The module's configuration key, for messages.
    public var module: String
    /// The built-in engines; the first is the default.
    public var factories: [Factory]
    /// The plugin engine kind that can provide this engine, if any.
    public var pluginKind: String?
    /// Wraps a plugin engine in the module's engine protocol.
    public var adapt: (@Sendable (PluginEngineHandle) throws -> Engine)?

    /// A registry for `module`.
    public init(
        module: String, pluginKind: String? = nil, adapt: (@Sendable (PluginEngineHandle) throws -> Engine)? = nil,
        factories: [Factory]
    ) {
        self.module = module
        self.factories = factories
        self.pluginKind = pluginKind
        self.adapt = adapt
    }

    /// The built-in engine names, default first.
    public var names: [String] { factories.map(\.name) }

    /// Reads `{engine, options}` from `object` (at key path `path` of `section`), defaulting the engine to the first
    /// built-in, and checks a built-in engine's options. An engine that is not built in is left to the plugins (it is
    /// checked when the engine is made, once plugins are loaded), unless the module takes no plugin engines.
    public func selection(
        from object: [String: JSONValue], at path: String, in section: ConfigurationSection
    ) throws -> EngineSelection {
        let name: String
        if let value = object["engine"] {
            guard let string = value.stringValue, !string.isEmpty else {
                throw section.error(
                    "\(path).engine", "must be an engine name", hint: "one of: \(names.joined(separator: ", "))")
            }
            name = string
        } else if let first = factories.first {
            name = first.name
        } else {
            throw section.error(
                "\(path).engine", "is missing", hint: "name the engine, e.g. {engine: NAME, options: {…}}")
        }
        let options = object["options"] ?? .object([:])
        guard let optionObject = options.objectValue else {
            throw section.error("\(path).options", "must be a map, not \(options.typeDescription)")
        }
        if let factory = factories.first(where: { $0.name == name }) {
            try section.checkKeys(optionObject, at: "\(path).options", known: factory.options)
        } else if pluginKind == nil {
            throw section.error(
                "\(path).engine", "names an unknown engine '\(name)'",
                hint: Suggestion.didYouMean(name, among: names, what: "engines"))
        }
        return EngineSelection(engine: name, options: options)
    }

    /// Makes the selected engine: a built-in one, or the engine of that name from a loaded plugin.
    /// - Throws: ``PluginError`` `.engineNotFound` naming every engine available when nothing provides it.
    public func make(_ selection: EngineSelection, in context: SuiteContext) async throws -> Engine {
        if let factory = factories.first(where: { $0.name == selection.engine }) {
            return try await factory.make(selection.options.objectValue ?? [:], context)
        }
        try context.plugins.requireAllLoaded()
        let provided = pluginKind.map { kind in context.plugins.engines(of: kind) } ?? []
        guard let pluginKind, let adapt, let plugin = context.plugins.provider(kind: pluginKind, name: selection.engine)
        else {
            let available = names + provided
            throw PluginError(
                .engineNotFound,
                "no \(module) engine named '\(selection.engine)' (available: \(available.joined(separator: ", ")))",
                hint: Suggestion.closest(to: selection.engine, among: available).map { "did you mean '\($0)'?" }
                    ?? "use a built-in engine, or list the plugin that provides '\(selection.engine)' under `plugins`")
        }
        return try adapt(try context.makePluginEngine(plugin, kind: pluginKind, selection: selection))
    }
}
