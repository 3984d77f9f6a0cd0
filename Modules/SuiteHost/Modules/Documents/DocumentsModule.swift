package import Documents
import DocumentsPluginSupport
import Foundation
package import SuiteCore
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
/// Each engine's options are described in its own file (``SQLiteDocumentEngineDescription``,
/// ``InMemoryDocumentEngineDescription``); `max-document-size` (bytes, default 1 MiB) applies to every engine.
package struct DocumentsModule: SuiteModule {
    /// The module's engines: `sqlite` (default), `memory`, then `documents` engines from plugins.
    package var engines: EngineRegistry<any DocumentEngine>

    /// The module with its built-in engines.
    package init() {
        engines = EngineRegistry(
            module: "documents",
            descriptions: [SQLiteDocumentEngineDescription(), InMemoryDocumentEngineDescription()],
            plugins: PluginEngines(kind: EngineKind.documents) { handle in PluginDocumentEngine(handle: handle) })
    }

    /// The module with `engines` (a test's or an app's own engine added to the built-in ones).
    package init(engines: EngineRegistry<any DocumentEngine>) {
        self.engines = engines
    }

    package var name: String { "Documents" }
    package var configurationKey: String { "documents" }
    package var builtInEngines: [String] { engines.names }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The engine, its options decoded.
        package var engine: ConfiguredEngine<any DocumentEngine>
        /// Composite indexes to declare (and backfill) when the store opens.
        package var indexes: [IndexDefinition]
        /// The largest document accepted, in bytes (option `max-document-size` of any engine).
        package var maximumDocumentSize: Int?
        /// Whether identical one-shot reads share one execution (`query-coalescing`).
        package var queryCoalescing = QueryCoalescing.disabled
        /// The query-rate limit (`query-rate`), if any.
        package var queryRateLimit: QueryRateLimit?
    }

    /// Decodes and checks the `documents` section.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["engine", "options", "indexes"] + Self.queryThrottlingKeys)
        let engine = try engines.configure(object, at: configurationKey, in: section)
        var maximumDocumentSize: Int?
        if let size = engine.options["max-document-size"] {
            guard let bytes = size.intValue, bytes > 0, bytes <= Int64(Int32.max) else {
                throw section.error(
                    "documents.options.max-document-size", "must be a positive number of bytes, not \(size.jsonString)")
            }
            maximumDocumentSize = Int(bytes)
        }
        return Settings(
            engine: engine, indexes: try indexes(object["indexes"], section: section),
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

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        await settings.engine.status(in: context)
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
    package func documentStore() async throws -> DocumentStore {
        try await resources.open("documents") { [self] in
            let settings = try settings(of: DocumentsModule.self)
            let engine = try await settings.engine.make(in: self)
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
                    try await settings.engine.close(engine)
                }
            )
        }
    }
}
