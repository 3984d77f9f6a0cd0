import Foundation
package import ServiceLifecycle
@_spi(Engine) package import StorageAccounting
package import SuiteCore

/// The Storage accounting module as the host sees it: the `storage` section, its index, the managed roots and how
/// each is laid out.
///
/// ```yaml
/// storage:
///   engine: sqlite
///   options: {path: storage.sqlite}
///   roots:
///     - {path: /var/lib/app, service: chat, layout: ["chats/{groupId}/{contentId}.{ext}"]}
///     - /var/lib/app/downloads            # service `files`, one group per top-level directory
///   app-size: {bundle: /opt/app, data: /var/lib/app, caches: /var/lib/app/caches, groups: [/srv/shared]}
///   record-caches: true                 # the Cache module's stored and evicted entries, as the `caches` service
/// ```
package struct StorageModule: SuiteModule {
    /// The index engines (what the scanner, the reconciler and the cleaner need of one): `sqlite`.
    package var engines: EngineRegistry<any StorageScanIndex>

    /// The module with its built-in index.
    package init() {
        engines = EngineRegistry(module: "storage", descriptions: [SQLiteStorageIndexDescription()])
    }

    package var name: String { "Storage" }
    package var configurationKey: String { "storage" }
    package var builtInEngines: [String] { engines.names }

    /// One managed root and how its files map to services, groups and content.
    package struct Root: Sendable, Hashable {
        /// The directory, absolute.
        package var path: String
        /// The service its unmatched files belong to.
        package var service: String
        /// Layout rules, first match wins.
        package var layout: [String]
        /// Whether content types come from the files' first bytes when the extension says nothing.
        package var sniff: Bool

        /// Creates a root.
        package init(path: String, service: String = "files", layout: [String] = [], sniff: Bool = false) {
            self.path = path
            self.service = service
            self.layout = layout
            self.sniff = sniff
        }
    }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The index engine, its options decoded.
        package var engine: ConfiguredEngine<any StorageScanIndex>
        /// The managed roots.
        package var roots: [Root]
        /// The directories of `suite storage app-size` when not given on the command line.
        package var appSize: [String: JSONValue]
        /// Whether the Cache module's events keep the items of the `caches` service (`cache.store` records one;
        /// `cache.evict`, `cache.remove` and `cache.clear` remove them).
        package var recordCaches: Bool
    }

    /// Decodes and checks the `storage` section.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(object, known: ["engine", "options", "roots", "app-size", "record-caches"])
        let engine = try engines.configure(object, at: configurationKey, in: section)
        var roots: [Root] = []
        if let list = object["roots"] {
            let hint = "e.g. roots: [{path: /var/lib/app, service: chat, layout: [\"chats/{groupId}/**\"]}]"
            guard let items = list.arrayValue else {
                throw section.error("storage.roots", "must be a list of directories", hint: hint)
            }
            for (index, item) in items.enumerated() {
                let key = "storage.roots[\(index)]"
                if let path = item.stringValue {
                    roots.append(Root(path: path, service: "files", layout: [], sniff: false))
                    continue
                }
                guard let map = item.objectValue else {
                    throw section.error(key, "must be a directory or a map", hint: hint)
                }
                try section.checkKeys(map, at: key, known: ["path", "service", "layout", "sniff"])
                guard let path = map["path"]?.stringValue, !path.isEmpty else {
                    throw section.error("\(key).path", "is missing", hint: hint)
                }
                let layout = map["layout"]?.arrayValue?.compactMap(\.stringValue) ?? []
                guard layout.count == map["layout"]?.arrayValue?.count ?? 0 else {
                    throw section.error("\(key).layout", "must be a list of layout rules", hint: hint)
                }
                if let sniff = map["sniff"], sniff.boolValue == nil {
                    throw section.error("\(key).sniff", "must be true or false")
                }
                for rule in layout {
                    do { _ = try LayoutRule(rule) } catch let error as StorageError {
                        throw section.error("\(key).layout", error.message, hint: error.hint)
                    }
                }
                roots.append(
                    Root(
                        path: path, service: map["service"]?.stringValue ?? "files", layout: layout,
                        sniff: map["sniff"]?.boolValue ?? false))
            }
        }
        var appSize: [String: JSONValue] = [:]
        if let value = object["app-size"] {
            guard let map = value.objectValue else {
                throw section.error("storage.app-size", "must be a map, e.g. {bundle: DIR, data: DIR, caches: DIR}")
            }
            try section.checkKeys(map, at: "storage.app-size", known: ["bundle", "data", "caches", "groups"])
            appSize = map
        }
        var recordCaches = true
        if let value = object["record-caches"] {
            guard let flag = value.boolValue else {
                throw section.error("storage.record-caches", "must be true or false")
            }
            recordCaches = flag
        }
        return Settings(engine: engine, roots: roots, appSize: appSize, recordCaches: recordCaches)
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        await settings.engine.status(in: context)
    }
}

extension StorageModule {
    /// While a command runs, the Cache module's stored and evicted entries are recorded as items of the `caches`
    /// service (``StorageAccounting/StorageBusRecorder``), into an index of the recorder's own, closed after it drains.
    package func services(_ settings: Settings, in context: SuiteContext) throws -> [any Service] {
        guard settings.recordCaches, let index = settings.engine.recorderIndex(in: context) else { return [] }
        let recorder = StorageBusRecorder(bus: context.bus, index: index)
        recorder.start()
        return [StorageRecorderService(recorder: recorder, index: index)]
    }
}

/// Runs until the command ends, then writes what the recorder still holds and closes its index.
struct StorageRecorderService: Service {
    let recorder: StorageBusRecorder
    let index: any StorageIndex

    func run() async throws {
        try? await gracefulShutdown()
        await recorder.stop()
        try await index.close()
    }
}

extension SuiteContext {
    /// The storage index on the configured engine, opened once per context and closed when the context shuts down.
    package func storageIndex() async throws -> any StorageScanIndex {
        try await resources.open("storage") { [self] in
            let settings = try settings(of: StorageModule.self)
            let index = try await settings.engine.make(in: self)
            return (
                index,
                {
                    try await index.close()
                    try await settings.engine.close(index)
                }
            )
        }
    }

    /// A scanner of the storage index, publishing on the context's bus.
    package func storageScanner() async throws -> StorageScanner {
        StorageScanner(index: try await storageIndex(), bus: bus, logger: logger)
    }

    /// A cleaner of the storage index (managing its scanned roots), publishing on the context's bus.
    package func storageCleaner() async throws -> StorageCleaner {
        StorageCleaner(index: try await storageIndex(), bus: bus, logger: logger)
    }
}
