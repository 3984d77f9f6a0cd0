package import Documents
import Foundation
package import SuiteCore

/// The Documents module's `sqlite` engine (the default): ``Documents/SQLiteDocumentEngine`` in one file.
///
/// ```yaml
/// documents:
///   engine: sqlite
///   options: {path: docs.sqlite, durability: normal, change-log-days: 7, change-log-minimum: 100000}
/// ```
///
/// Options: `path` (default `documents.sqlite` in the data directory; a relative path resolves against the
/// configuration file's folder), `durability` (`normal`, the default: no acknowledged write is lost when the process
/// dies, and after a power loss the file opens consistent but may miss the last whole commits; `full`: every commit is
/// synced, 5–10× slower for single-document writes), `max-document-size` (the module's), `change-log-days` (days the
/// change log keeps its records, default 7) and `change-log-minimum` (records kept however old, default 100,000; see
/// ``Documents/ChangeLogRetention``).
package struct SQLiteDocumentEngineDescription: EngineDescription {
    /// The decoded options.
    package struct Options: Sendable {
        /// The `path` option as written (resolved against the data directory when the engine is made).
        package var path: JSONValue?
        /// How each commit reaches the disk.
        package var durability: SQLiteDocumentEngine.Durability
        /// How long the change log keeps its records.
        package var retention: ChangeLogRetention
    }

    /// Creates the description.
    package init() {}

    package var name: String { "sqlite" }
    package var optionKeys: [String] {
        ["path", "durability", "max-document-size", "change-log-days", "change-log-minimum"]
    }

    package func options(_ options: EngineOptions) throws -> Options {
        var durability = SQLiteDocumentEngine.Durability.normal
        if let value = options["durability"] {
            guard let name = value.stringValue, let parsed = SQLiteDocumentEngine.Durability(rawValue: name) else {
                throw options.error(
                    "durability", "must be 'full' or 'normal', not \(value.jsonString)",
                    hint: Suggestion.didYouMean(value.stringValue ?? "", among: ["normal", "full"]))
            }
            durability = parsed
        }
        var retention = ChangeLogRetention.standard
        if let value = options["change-log-days"] {
            guard let days = value.numberValue, days >= 0, days <= 36_500 else {
                throw options.error(
                    "change-log-days", "must be a number of days from 0 to 36500, not \(value.jsonString)",
                    hint: "e.g. change-log-days: 7")
            }
            retention.maximumAge = .seconds(days * 86_400)
        }
        if let value = options["change-log-minimum"] {
            guard let count = value.intValue, count >= 1, count <= Int64(Int32.max) else {
                throw options.error(
                    "change-log-minimum", "must be a whole number of records from 1, not \(value.jsonString)",
                    hint: "e.g. change-log-minimum: 100000")
            }
            retention.minimumCount = Int(count)
        }
        return Options(path: options["path"], durability: durability, retention: retention)
    }

    package func make(_ options: Options, in context: SuiteContext) async throws -> any DocumentEngine {
        try context.ensureDataDirectory()
        return try SQLiteDocumentEngine(
            path: context.dataFile(options.path, default: "documents.sqlite"), durability: options.durability,
            changeLogRetention: options.retention, logger: context.logger)
    }

    /// The file, its size and the index's maintenance state (opening the store when the file exists).
    package func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus {
        let path = context.dataFile(options.path, default: "documents.sqlite")
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            return ModuleStatus(
                engine: name, location: path, health: "ok (no data yet)",
                details: [.init("file", "created on the first write")])
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        var status = ModuleStatus(
            engine: name, location: path, details: [.init("file size", DocumentsModule.formatBytes(size))])
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
        } catch {
            status.health = "cannot open: \((error as? any SuiteDescribedError)?.message ?? "\(error)")"
            status.isHealthy = false
        }
        return status
    }
}
