import Foundation
@_spi(Engine) package import StorageAccounting
package import SuiteCore
import Synchronization

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
    /// when the index is the SQLite file. It opens on the recorder's first write: most commands store nothing in the
    /// cache, and opening an index costs each of them a few milliseconds.
    func recorderIndex(in context: SuiteContext) -> LazyStorageIndex? {
        guard let options = options(as: SQLiteStorageIndexDescription.Options.self) else { return nil }
        return LazyStorageIndex { try SQLiteStorageIndexDescription().open(options, in: context) }
    }
}

/// A storage index opened on first use; ``close()`` closes it only if it was opened. An open that fails is tried
/// again by the next call, each call throwing the open's error.
final class LazyStorageIndex: StorageIndex {
    private let open: @Sendable () throws -> any StorageIndex
    private let opened = Mutex<(any StorageIndex)?>(nil)

    init(open: @escaping @Sendable () throws -> any StorageIndex) { self.open = open }

    private func index() throws -> any StorageIndex {
        try opened.withLock { index in
            if let index { return index }
            let made = try open()
            index = made
            return made
        }
    }

    func record(_ items: [StorageItem]) async throws { try await index().record(items) }
    func remove(ids: [String]) async throws -> Int { try await index().remove(ids: ids) }
    func usage(_ filter: StorageFilter) async throws -> StorageUsage { try await index().usage(filter) }
    func categories(_ filter: StorageFilter) async throws -> [StorageCategoryUsage] {
        try await index().categories(filter)
    }
    func groups(_ filter: StorageFilter, sort: StorageGroupSort, limit: Int?) async throws -> [StorageGroupUsage] {
        try await index().groups(filter, sort: sort, limit: limit)
    }
    func services(_ filter: StorageFilter) async throws -> [StorageServiceUsage] { try await index().services(filter) }
    func items(_ filter: StorageFilter, order: StorageItemOrder, limit: Int?) async throws -> [StorageItem] {
        try await index().items(filter, order: order, limit: limit)
    }
    func freedIfDeleted(_ filter: StorageFilter) async throws -> StorageFreedEstimate {
        try await index().freedIfDeleted(filter)
    }
    func report(topGroups: Int) async throws -> StorageReport { try await index().report(topGroups: topGroups) }

    func close() async throws {
        let index = opened.withLock { index in
            let taken = index
            index = nil
            return taken
        }
        try await index?.close()
    }
}
