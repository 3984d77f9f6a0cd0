public import Documents
import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit

extension SuiteContext {
    /// The built-in Documents engines, by configuration name.
    public static let builtInDocumentEngines = ["sqlite", "memory"]

    /// Opens the Documents store on the configured engine: `sqlite` (default; one file in the data directory),
    /// `memory`, or a `documents` engine provided by a loaded plugin. Commits and costs are published on the bus.
    /// Composite indexes listed under `documents.indexes` are declared (and backfilled) if missing.
    ///
    /// `sqlite` options: `path` (default `documents.sqlite`, relative to the data directory), `durability`
    /// (`normal`, the default: no acknowledged write is lost when the process dies, and after a power loss the file
    /// opens consistent but may miss the last whole commits; `full`: every commit is synced to disk, 5–10× slower
    /// for single-document writes), `max-document-size` (bytes, default 1 MiB).
    public func openDocumentStore() async throws -> DocumentStore {
        let selection = configuration.documents
        let options = selection.options.objectValue ?? [:]
        var limits = DocumentLimits()
        if let size = options["max-document-size"] {
            guard let bytes = size.intValue, bytes > 0 else {
                throw SuiteError(
                    .invalidConfiguration, "documents option 'max-document-size' must be a positive integer (bytes)")
            }
            limits.maximumDocumentSize = Int(bytes)
        }
        let engine: any DocumentEngine
        switch selection.engine {
        case "sqlite":
            for key in options.keys where !["path", "durability", "max-document-size"].contains(key) {
                throw SuiteError(
                    .invalidConfiguration, "unknown option '\(key)' for documents engine 'sqlite'",
                    hint: "sqlite takes: path, durability (full|normal), max-document-size")
            }
            try ensureDataDirectory()
            let file = options["path"]?.stringValue ?? "documents.sqlite"
            let path = file.hasPrefix("/") ? file : configuration.dataDirectory + "/" + file
            let durability: SQLiteDocumentEngine.Durability
            switch options["durability"]?.stringValue ?? "normal" {
            case "full": durability = .full
            case "normal": durability = .normal
            case let other:
                throw SuiteError(
                    .invalidConfiguration, "documents option 'durability' must be 'full' or 'normal', not '\(other)'")
            }
            engine = try SQLiteDocumentEngine(path: path, durability: durability, logger: logger)
        case "memory":
            engine = InMemoryDocumentEngine()
        case let name:
            try plugins.requireAllLoaded()
            guard let plugin = plugins.provider(kind: EngineKind.documents, name: name) else {
                let available =
                    Self.builtInDocumentEngines
                    + plugins.loaded.flatMap(\.engines).filter { $0.kind == EngineKind.documents }.map(\.name)
                throw PluginError(
                    .engineNotFound,
                    "no documents engine named '\(name)' (available: \(available.joined(separator: ", ")))",
                    hint: "use a built-in engine, or list the plugin that provides '\(name)' under `plugins`")
            }
            engine = try PluginDocumentEngine(plugin: plugin, name: name, options: selection.options)
        }
        let store = DocumentStore(engine: engine, bus: bus, clock: clock, limits: limits, logger: logger)
        try await declareConfiguredIndexes(in: store)
        return store
    }

    /// Declares the configuration's `documents.indexes` that the store does not have yet (declaring backfills).
    func declareConfiguredIndexes(in store: DocumentStore) async throws {
        guard !configuration.documentIndexes.isEmpty else { return }
        let existing = Set(try await store.indexes())
        for item in configuration.documentIndexes {
            let fields = (item["fields"]?.arrayValue ?? []).compactMap(\.stringValue)
            let definition = IndexDefinition(
                collectionID: item["collection"]?.stringValue ?? "",
                scope: item["group"]?.boolValue == true ? .collectionGroup : .collection,
                fields: try fields.map(IndexDefinition.Field.init(parsing:)))
            if !existing.contains(definition) { try await store.declareIndex(definition) }
        }
    }
}
