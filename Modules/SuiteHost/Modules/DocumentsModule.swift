public import Documents
import DocumentsPluginSupport
import Foundation
public import SuiteCore
import SuitePluginKit

/// The Documents module as the host sees it: the `documents` section, the `sqlite` and `memory` engines, the
/// `documents` plugin kind, and its status.
///
/// ```yaml
/// documents:
///   engine: sqlite                 # or memory, or a documents engine from a plugin
///   options: {path: docs.sqlite, durability: normal, max-document-size: 1048576}
///   indexes: [{collection: users, fields: [city, "points:desc"]}]
///   query-coalescing: {window-ms: 50}
///   query-rate: {per-second: 20, burst: 40}
/// ```
///
/// `query-coalescing` and `query-rate` set the store's `DocumentStore.Options.queryCoalescing` and
/// `DocumentStore.Options.queryRateLimit` (see `DocumentsModule+QueryThrottling.swift` for their keys).
///
/// `sqlite` options: `path` (default `documents.sqlite` in the data directory; a relative path resolves against the
/// configuration file's folder), `durability` (`normal`, the default: no acknowledged write is lost when the process
/// dies, and after a power loss the file opens consistent but may miss the last whole commits; `full`: every commit
/// is synced, 5–10× slower for single-document writes), `max-document-size` (bytes, default 1 MiB),
/// `change-log-days` (days the change log keeps its records, default 7) and `change-log-minimum` (records kept however
/// old, default 100,000; see ``ChangeLogRetention``).
public struct DocumentsModule: SuiteModule {
    /// Creates the description.
    public init() {}

    public var name: String { "Documents" }
    public var configurationKey: String { "documents" }
    public var builtInEngines: [String] { engines.names }
    public var pluginKind: String? { EngineKind.documents }

    /// The module's engines: `sqlite` (default), `memory`, then `documents` engines from plugins.
    public var engines: EngineRegistry<any DocumentEngine> {
        EngineRegistry(
            module: configurationKey, pluginKind: EngineKind.documents,
            adapt: { handle in PluginDocumentEngine(handle: handle) },
            factories: [
                .init(
                    name: "sqlite",
                    options: ["path", "durability", "max-document-size", "change-log-days", "change-log-minimum"]
                ) { options, context in
                    try context.ensureDataDirectory()
                    let durability = try Self.durability(options["durability"])
                    return try SQLiteDocumentEngine(
                        path: Self.databasePath(options, dataDirectory: context.configuration.dataDirectory),
                        durability: durability, changeLogRetention: try Self.retention(options),
                        logger: context.logger)
                },
                .init(name: "memory", options: ["max-document-size"]) { _, _ in InMemoryDocumentEngine() },
            ])
    }

    /// The section's settings: the engine and the declared composite indexes.
    public struct Settings: Sendable {
        /// The engine and its options.
        public var selection: EngineSelection
        /// Composite indexes to declare (and backfill) when the store opens.
        public var indexes: [IndexDefinition]
        /// The largest document accepted, in bytes.
        public var maximumDocumentSize: Int?
        /// Whether identical one-shot reads share one execution (`query-coalescing`).
        public var queryCoalescing = QueryCoalescing.disabled
        /// The query-rate limit (`query-rate`), if any.
        public var queryRateLimit: QueryRateLimit?
    }

    public func validate(_ section: ConfigurationSection) throws {
        _ = try settings(section)
    }

    /// Decodes and checks the `documents` section.
    public func settings(_ section: ConfigurationSection) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["engine", "options", "indexes"] + Self.queryThrottlingKeys)
        let selection = try engines.selection(from: object, at: configurationKey, in: section)
        var maximumDocumentSize: Int?
        if let size = selection.options["max-document-size"] {
            guard let bytes = size.intValue, bytes > 0, bytes <= Int64(Int32.max) else {
                throw section.error(
                    "documents.options.max-document-size", "must be a positive number of bytes, not \(size.jsonString)")
            }
            maximumDocumentSize = Int(bytes)
        }
        if selection.engine == "sqlite" {
            do {
                _ = try Self.durability(selection.options["durability"])
            } catch let error as SuiteError {
                throw section.error("documents.options.durability", error.message, hint: error.hint)
            }
            for (key, check) in [
                ("change-log-days", { _ = try Self.changeLogAge($0) }),
                ("change-log-minimum", { _ = try Self.changeLogMinimum($0) }),
            ] as [(String, (JSONValue?) throws -> Void)] {
                do {
                    try check(selection.options[key])
                } catch let error as SuiteError {
                    throw section.error("documents.options.\(key)", error.message, hint: error.hint)
                }
            }
        }
        return Settings(
            selection: selection, indexes: try indexes(object["indexes"], section: section),
            maximumDocumentSize: maximumDocumentSize,
            queryCoalescing: try queryCoalescing(object["query-coalescing"], section: section),
            queryRateLimit: try queryRateLimit(object["query-rate"], section: section))
    }

    /// Checks `indexes`: a list of `{collection: ID, fields: [FIELD[:asc|desc|contains], …], group: BOOL}`.
    func indexes(_ value: JSONValue?, section: ConfigurationSection) throws -> [IndexDefinition] {
        guard let value else { return [] }
        let hint = "e.g. indexes: [{collection: users, fields: [city, \"points:desc\"]}]"
        guard let items = value.arrayValue else {
            throw section.error("documents.indexes", "must be a list, not \(value.typeDescription)", hint: hint)
        }
        return try items.enumerated().map { index, item in
            let key = "documents.indexes[\(index)]"
            guard let object = item.objectValue else { throw section.error(key, "must be a map", hint: hint) }
            try section.checkKeys(object, at: key, known: ["collection", "fields", "group"])
            guard let collection = object["collection"]?.stringValue,
                let fields = object["fields"]?.arrayValue?.compactMap(\.stringValue),
                fields.count == object["fields"]?.arrayValue?.count, !fields.isEmpty
            else {
                throw section.error(
                    key, "needs a 'collection' string and a non-empty 'fields' list of strings", hint: hint)
            }
            if let group = object["group"], group.boolValue == nil {
                throw section.error("\(key).group", "must be true or false")
            }
            do {
                return IndexDefinition(
                    collectionID: collection,
                    scope: object["group"]?.boolValue == true ? .collectionGroup : .collection,
                    fields: try fields.map(IndexDefinition.Field.init(parsing:)))
            } catch let error as any SuiteDescribedError {
                throw section.error("\(key).fields", error.message, hint: error.hint)
            }
        }
    }

    public func status(in context: SuiteContext) async -> ModuleStatus {
        let section = context.configuration.section(configurationKey)
        guard let settings = try? settings(section) else {
            return ModuleStatus(engine: "?", health: "invalid configuration", isHealthy: false)
        }
        let selection = settings.selection
        switch selection.engine {
        case "sqlite":
            let path = Self.databasePath(
                selection.options.objectValue ?? [:], dataDirectory: context.configuration.dataDirectory)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
                return ModuleStatus(
                    engine: "sqlite", location: path, health: "ok (no data yet)",
                    details: [.init("file", "created on the first write")])
            }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            var status = ModuleStatus(
                engine: "sqlite", location: path, details: [.init("file size", Self.formatBytes(size))])
            do {
                if let index = try await context.documentStore().indexStatus() {
                    status.details.append(.init("pending index operations", "\(index.pendingOperations)"))
                    status.details.append(.init("index runs", "\(index.runs) (\(index.runEntries) entries)"))
                    if let error = index.lastMaintenanceError {
                        status.health = "index maintenance failing: \(error)"
                    } else if index.pendingOperations > 0 {
                        status.health = "ok (\(index.pendingOperations) index operations pending)"
                    }
                }
            } catch let error as any SuiteDescribedError {
                status.health = "cannot open: \(error.message)"
                status.isHealthy = false
            } catch {
                status.health = "cannot open: \(error)"
                status.isHealthy = false
            }
            return status
        case "memory":
            return ModuleStatus(engine: "memory", location: "in memory (nothing kept after the command)")
        case let name:
            let provider = context.plugins.provider(kind: EngineKind.documents, name: name)
            return ModuleStatus(
                engine: name, location: provider.map { "plugin \($0.name) (\($0.path))" } ?? "no plugin provides it",
                health: provider == nil ? "engine not found" : "ok", isHealthy: provider != nil)
        }
    }

    // MARK: - Helpers

    static func databasePath(_ options: [String: JSONValue], dataDirectory: String) -> String {
        let file = options["path"]?.stringValue ?? "documents.sqlite"
        return file.hasPrefix("/") ? file : dataDirectory + "/" + file
    }

    static func durability(_ value: JSONValue?) throws -> SQLiteDocumentEngine.Durability {
        guard let value else { return .normal }
        guard let name = value.stringValue, let durability = SQLiteDocumentEngine.Durability(rawValue: name) else {
            throw SuiteError(
                .invalidConfiguration, "must be 'full' or 'normal', not \(value.jsonString)",
                hint: Suggestion.didYouMean(value.stringValue ?? "", among: ["normal", "full"]))
        }
        return durability
    }

    /// The change log's retention from options `change-log-days` and `change-log-minimum` (defaults where absent).
    static func retention(_ options: [String: JSONValue]) throws -> ChangeLogRetention {
        var retention = ChangeLogRetention.standard
        if let age = try changeLogAge(options["change-log-days"]) { retention.maximumAge = age }
        if let count = try changeLogMinimum(options["change-log-minimum"]) { retention.minimumCount = count }
        return retention
    }

    /// Option `change-log-days`: a number of days from 0 to 36,500 (fractions allowed).
    static func changeLogAge(_ value: JSONValue?) throws -> Duration? {
        guard let value else { return nil }
        guard let days = value.numberValue, days >= 0, days <= 36_500 else {
            throw SuiteError(
                .invalidConfiguration, "must be a number of days from 0 to 36500, not \(value.jsonString)",
                hint: "e.g. change-log-days: 7")
        }
        return .seconds(days * 86_400)
    }

    /// Option `change-log-minimum`: a whole number of records, at least 1.
    static func changeLogMinimum(_ value: JSONValue?) throws -> Int? {
        guard let value else { return nil }
        guard let count = value.intValue, count >= 1, count <= Int64(Int32.max) else {
            throw SuiteError(
                .invalidConfiguration, "must be a whole number of records from 1, not \(value.jsonString)",
                hint: "e.g. change-log-minimum: 100000")
        }
        return Int(count)
    }

    static func formatBytes(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

extension SuiteContext {
    /// The Documents store on the configured engine, opened once per context and closed when the context shuts
    /// down. Commits and costs are published on the bus (source `documents`); composite indexes listed under
    /// `documents.indexes` are declared (and backfilled) if missing.
    public func documentStore() async throws -> DocumentStore {
        try await resources.open("documents") { [self] in
            let module = DocumentsModule()
            let settings = try module.settings(configuration.section(module.configurationKey))
            let engine = try await module.engines.make(settings.selection, in: self)
            var limits = DocumentLimits()
            if let size = settings.maximumDocumentSize { limits.maximumDocumentSize = size }
            var options = DocumentStore.Options()
            options.queryCoalescing = settings.queryCoalescing
            options.queryRateLimit = settings.queryRateLimit
            let store = DocumentStore(
                engine: engine, bus: bus, clock: clock, limits: limits, logger: logger, options: options)
            do {
                let existing = Set(try await store.indexes())
                for definition in settings.indexes where !existing.contains(definition) {
                    try await store.declareIndex(definition)
                }
            } catch {
                await store.close()
                throw error
            }
            let finishReplica: (@Sendable () async -> Void)?
            do { finishReplica = try await attachReplica(store) } catch {
                await store.close()
                throw error
            }
            return (
                store,
                {
                    await finishReplica?()
                    await store.close()
                }
            )
        }
    }
}
