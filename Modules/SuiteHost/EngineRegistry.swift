package import SuiteCore
package import SuitePluginKit

/// One engine a module can run on, described in a file of its own: its configuration name, its options (checked and
/// decoded once, when the configuration loads), how to make it, what `suite status` says of it and how to close it.
///
/// The module lists its descriptions in its ``EngineRegistry``; nothing else names the engine. A plugin engine goes
/// through the same path (``ConfiguredEngine``), made by the registry's ``PluginEngines``.
///
/// ```swift
/// struct InMemoryCacheStoreDescription: EngineDescription {
///     var name: String { "memory" }
///     var optionKeys: [String] { ["byte-limit"] }
///     func options(_ options: EngineOptions) throws -> Int {
///         try options.integer("byte-limit", in: 1...Int64(Int32.max)) ?? 64 << 20
///     }
///     func make(_ byteLimit: Int, in context: SuiteContext) async throws -> any CacheStore {
///         try InMemoryCacheStore(byteLimit: byteLimit)
///     }
/// }
/// ```
package protocol EngineDescription<Engine>: Sendable {
    /// The module's engine protocol, e.g. `any CacheStore`.
    associatedtype Engine: Sendable
    /// The engine's options, decoded.
    associatedtype Options: Sendable
    /// The engine's configuration name (`sqlite`).
    var name: String { get }
    /// The option keys it accepts; any other is an error naming the key, the file, the line and the closest key.
    var optionKeys: [String] { get }
    /// Whether the engine keeps its data in this process only (nothing survives the command; no memory tier in front).
    var keepsDataInMemory: Bool { get }
    /// Decodes and checks the options (their keys are already checked); errors come from ``EngineOptions/error(_:_:hint:)``.
    func options(_ options: EngineOptions) throws -> Options
    /// Makes the engine (path options are already absolute).
    func make(_ options: Options, in context: SuiteContext) async throws -> Engine
    /// The module's line in `suite status` on this engine.
    func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus
    /// Releases what ``make(_:in:)`` opened beyond what the module closes itself (an HTTP client's connections).
    func close(_ engine: Engine) async throws
}

extension EngineDescription {
    package var keepsDataInMemory: Bool { false }
    package func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(engine: name, location: keepsDataInMemory ? "in memory (nothing kept after the command)" : "-")
    }
    package func close(_ engine: Engine) async throws {}

    /// Checks `values` (at key path `path` of `section`) and decodes them into a configured engine.
    func configure(_ values: [String: JSONValue], at path: String, in section: ConfigurationSection) throws
        -> ConfiguredEngine<Engine>
    {
        try section.checkKeys(values, at: path, known: optionKeys)
        let decoded = try options(EngineOptions(values: values, path: path, section: section))
        return ConfiguredEngine(
            name: name, options: values, keepsDataInMemory: keepsDataInMemory, decoded: decoded,
            make: { context in try await make(decoded, in: context) },
            status: { context in await status(decoded, in: context) },
            close: { engine in try await close(engine) })
    }
}

/// An engine's options as configured, with errors that name the key where it was written.
package struct EngineOptions: Sendable {
    /// The options, path options already absolute.
    package var values: [String: JSONValue]
    /// Their key path in the configuration (`documents.options`).
    package var path: String
    /// The section they were read from.
    package var section: ConfigurationSection

    /// The value of `key`, if given.
    package subscript(key: String) -> JSONValue? { values[key] }

    /// An `invalidConfiguration` error about option `key`: `key 'cache.options.byte-limit' in FILE (line 3) …`.
    package func error(_ key: String, _ problem: String, hint: String? = nil) -> SuiteError {
        section.error("\(path).\(key)", problem, hint: hint)
    }

    /// Option `key` as a whole number in `range`, or nil when absent.
    package func integer(_ key: String, in range: ClosedRange<Int64>, hint: String? = nil) throws -> Int? {
        guard let value = values[key] else { return nil }
        guard let number = value.intValue, range.contains(number) else {
            throw error(
                key, "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(value.jsonString)",
                hint: hint)
        }
        return Int(number)
    }

    /// Re-throws a ``SuiteDescribedError`` from checking option `key` as an error naming where it was written.
    package func checking<T>(_ key: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as any SuiteDescribedError {
            throw self.error(key, error.message, hint: error.hint)
        }
    }
}

/// A module's engine as configured: decoded once, when the configuration loads, and made on first use. Built-in and
/// plugin engines alike.
package struct ConfiguredEngine<Engine: Sendable>: Sendable {
    /// The engine's configuration name.
    package let name: String
    /// Its options as written (path options absolute).
    package let options: [String: JSONValue]
    /// Whether it keeps its data in this process only.
    package let keepsDataInMemory: Bool
    /// The options as the engine's description decoded them; read by that description's own file only.
    let decoded: any Sendable
    let makeEngine: @Sendable (SuiteContext) async throws -> Engine
    let describe: @Sendable (SuiteContext) async -> ModuleStatus
    let closeEngine: @Sendable (Engine) async throws -> Void

    init(
        name: String, options: [String: JSONValue], keepsDataInMemory: Bool, decoded: any Sendable,
        make: @escaping @Sendable (SuiteContext) async throws -> Engine,
        status: @escaping @Sendable (SuiteContext) async -> ModuleStatus,
        close: @escaping @Sendable (Engine) async throws -> Void
    ) {
        self.name = name
        self.options = options
        self.keepsDataInMemory = keepsDataInMemory
        self.decoded = decoded
        self.makeEngine = make
        self.describe = status
        self.closeEngine = close
    }

    /// The selection as written: name and options.
    package var selection: EngineSelection { EngineSelection(engine: name, options: .object(options)) }

    /// Makes the engine.
    package func make(in context: SuiteContext) async throws -> Engine { try await makeEngine(context) }

    /// The module's line in `suite status` on this engine.
    package func status(in context: SuiteContext) async -> ModuleStatus { await describe(context) }

    /// Releases what making the engine opened beyond what the module closes itself.
    package func close(_ engine: Engine) async throws { try await closeEngine(engine) }

    /// The decoded options, when the engine's description decodes to `type`.
    package func options<T>(as type: T.Type) -> T? { decoded as? T }
}

/// The engines a plugin can provide to a module: its plugin engine kind and the adapter to the module's protocol.
package struct PluginEngines<Engine: Sendable>: Sendable {
    /// The plugin engine kind (``SuitePluginKit/EngineKind``).
    package var kind: String
    /// Wraps a plugin engine in the module's engine protocol.
    package var adapt: @Sendable (PluginEngineHandle) throws -> Engine

    /// Plugin engines of `kind`, adapted by `adapt`.
    package init(kind: String, adapt: @escaping @Sendable (PluginEngineHandle) throws -> Engine) {
        self.kind = kind
        self.adapt = adapt
    }

    /// The engine `name` from a plugin, with `options` as written: checked by the plugin when it is made.
    func configure(_ name: String, options: [String: JSONValue], module: String, builtIn: [String])
        -> ConfiguredEngine<Engine>
    {
        let kind = kind
        let adapt = adapt
        return ConfiguredEngine(
            name: name, options: options, keepsDataInMemory: false, decoded: options,
            make: { context in
                try context.plugins.requireAllLoaded()
                guard let plugin = context.plugins.provider(kind: kind, name: name) else {
                    let (message, suggestion) = Self.notFound(
                        name, kind: kind, module: module, builtIn: builtIn, in: context)
                    throw PluginError(
                        .engineNotFound, message,
                        hint: suggestion
                            ?? "use a built-in engine, or list the plugin that provides '\(name)' under `plugins`")
                }
                let selection = EngineSelection(engine: name, options: .object(options))
                return try adapt(try context.makePluginEngine(plugin, kind: kind, selection: selection))
            },
            status: { context in
                guard let provider = context.plugins.provider(kind: kind, name: name) else {
                    let (message, suggestion) = Self.notFound(
                        name, kind: kind, module: module, builtIn: builtIn, in: context)
                    return ModuleStatus(
                        engine: name, location: "no plugin provides it",
                        health: message + (suggestion.map { "; \($0)" } ?? ""), isHealthy: false)
                }
                return ModuleStatus(
                    engine: name, location: "plugin \(provider.name) (\(provider.path))", health: "ok", isHealthy: true)
            },
            close: { _ in })
    }

    /// Why no engine `name` was found, naming the engines there are, and the closest one as "did you mean".
    static func notFound(_ name: String, kind: String, module: String, builtIn: [String], in context: SuiteContext)
        -> (
            message: String, suggestion: String?
        )
    {
        let available = builtIn + context.plugins.engines(of: kind)
        return (
            "no \(module) engine named '\(name)' (available: \(available.joined(separator: ", ")))",
            Suggestion.closest(to: name, among: available).map { "did you mean '\($0)'?" }
        )
    }
}

/// A module's engines by name: the built-in descriptions, then any loaded plugin providing its engine kind.
///
/// ```swift
/// let engines = EngineRegistry<any CacheStore>(
///     module: "cache", descriptions: [SQLiteCacheStoreDescription(), InMemoryCacheStoreDescription()],
///     plugins: PluginEngines(kind: EngineKind.cache) { handle in PluginCacheStore(handle: handle) })
/// let engine = try engines.configure(object, at: "cache", in: section)   // when the configuration loads
/// let store = try await engine.make(in: context)                        // on first use
/// ```
package struct EngineRegistry<Engine: Sendable>: Sendable {
    /// The module's configuration key, for messages.
    package var module: String
    /// The built-in engines; the first is the default.
    package var descriptions: [any EngineDescription<Engine>]
    /// The engines plugins can provide, if any.
    package var plugins: PluginEngines<Engine>?

    /// A registry for `module`.
    package init(
        module: String, descriptions: [any EngineDescription<Engine>], plugins: PluginEngines<Engine>? = nil
    ) {
        self.module = module
        self.descriptions = descriptions
        self.plugins = plugins
    }

    /// The built-in engine names, default first.
    package var names: [String] { descriptions.map(\.name) }

    /// The registry with `description` added after the built-in engines (a test's or an app's own engine).
    package func adding(_ description: any EngineDescription<Engine>) -> Self {
        var copy = self
        copy.descriptions.append(description)
        return copy
    }

    /// Reads `{engine, options}` from `object` (at key path `path` of `section`), defaulting the engine to the first
    /// built-in, and checks and decodes a built-in engine's options. An engine that is not built in is left to the
    /// plugins (checked when it is made, once plugins are loaded), unless the module takes no plugin engines.
    package func configure(_ object: [String: JSONValue], at path: String, in section: ConfigurationSection) throws
        -> ConfiguredEngine<Engine>
    {
        let name: String
        if let value = object["engine"] {
            guard let string = value.stringValue, !string.isEmpty else {
                throw section.error(
                    "\(path).engine", "must be an engine name", hint: "one of: \(names.joined(separator: ", "))")
            }
            name = string
        } else if let first = descriptions.first {
            name = first.name
        } else {
            throw section.error(
                "\(path).engine", "is missing", hint: "name the engine, e.g. {engine: NAME, options: {…}}")
        }
        let options = object["options"] ?? .object([:])
        guard let values = options.objectValue else {
            throw section.error("\(path).options", "must be a map, not \(options.typeDescription)")
        }
        if let description = descriptions.first(where: { $0.name == name }) {
            return try description.configure(values, at: "\(path).options", in: section)
        }
        guard let plugins else {
            throw section.error(
                "\(path).engine", "names an unknown engine '\(name)'",
                hint: Suggestion.didYouMean(name, among: names, what: "engines"))
        }
        return plugins.configure(name, options: values, module: module, builtIn: names)
    }
}
