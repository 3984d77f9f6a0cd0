import Foundation
@_spi(Engine) package import StorageAccounting
package import SuiteCore

/// The Storage module's `sqlite` index: ``StorageAccounting/SQLiteStorageIndex`` in one file (option `path`, default
/// `storage.sqlite` in the data directory).
package struct SQLiteStorageIndexDescription: EngineDescription {
    /// The decoded options: the `path` option as written.
    package struct Options: Sendable {
        /// The `path` option as written (resolved against the data directory when the index is made).
        package var path: JSONValue?
    }

    /// Creates the description.
    package init() {}

    package var name: String { "sqlite" }
    package var optionKeys: [String] { ["path"] }

    package func options(_ options: EngineOptions) throws -> Options { Options(path: options["path"]) }

    package func make(_ options: Options, in context: SuiteContext) async throws -> any StorageScanIndex {
        try open(options, in: context)
    }

    func open(_ options: Options, in context: SuiteContext) throws -> SQLiteStorageIndex {
        try context.ensureDataDirectory()
        return try SQLiteStorageIndex(
            path: context.dataFile(options.path, default: "storage.sqlite"), logger: context.logger)
    }

    /// The file, and the items and bytes indexed when it exists.
    package func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus {
        let path = context.dataFile(options.path, default: "storage.sqlite")
        var status = ModuleStatus(engine: name, location: path)
        guard FileManager.default.fileExists(atPath: path) else {
            status.health = "ok (nothing indexed yet)"
            return status
        }
        do {
            let total = try await context.storageIndex().total()
            status.details.append(.init("items", "\(total.items)"))
            status.details.append(.init("allocated", DocumentsModule.formatBytes(total.allocatedBytes)))
        } catch {
            status.health = "cannot open: \((error as? any SuiteDescribedError)?.message ?? "\(error)")"
            status.isHealthy = false
        }
        return status
    }
}

extension ConfiguredEngine where Engine == any StorageScanIndex {
    /// A connection of its own for the bus recorder (the Cache module's entries as items of the `caches` service),
    /// when the index is the SQLite file.
    func recorderIndex(in context: SuiteContext) throws -> (any StorageIndex)? {
        guard let options = options(as: SQLiteStorageIndexDescription.Options.self) else { return nil }
        return try SQLiteStorageIndexDescription().open(options, in: context)
    }
}
