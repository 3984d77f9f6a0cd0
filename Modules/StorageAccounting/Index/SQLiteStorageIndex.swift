import Foundation
import GRDB
public import Logging
import Synchronization

/// A ``StorageIndex`` in one SQLite file (WAL mode, a GRDB `DatabasePool`): items in a table with the indexes the
/// queries need, per (service, group, category) totals maintained with every write, and the state of scans.
///
/// ```swift
/// let index = try SQLiteStorageIndex(path: dataDirectory + "/storage.sqlite")
/// let scanner = StorageScanner(index: index)
/// _ = try await scanner.scan(root: appData, layout: [try LayoutRule("chats/{groupId}/{contentId}.{ext}")])
/// let report = try await index.report(topGroups: 10)
/// ```
///
/// ## Speed
///
/// Totals, categories, services and the group list read the maintained `group_totals` table (one row per service,
/// group and category), not the items: their cost follows the number of groups, not of files. Hard links are counted
/// once per bucket by subtracting the maintained `link_corrections`; the write path finds an inode's other links in a
/// partial index of the rows with `st_nlink > 1`. The largest items come from an index on the allocated size; a first
/// scan into an empty index builds the item indexes at its end.
///
/// ## Durability
///
/// `synchronous = NORMAL` in WAL mode: a write returns after its transaction is in the log; a crash loses no
/// returned write, a power loss may lose the last ones. The index can always be rebuilt from the disk by a scan, and
/// ``Reconciler`` finds what a crash between a file change and its index update left behind.
public final class SQLiteStorageIndex: Sendable {
    /// The database file.
    public let path: String
    let pool: DatabasePool
    let logger: Logger
    let isClosed = Atomic<Bool>(false)

    /// Opens (creating if needed) the index at `path`.
    ///
    /// - Throws: ``StorageError`` `.storage` when the file cannot be opened or is another program's database.
    public init(path: String, logger: Logger = Logger(label: "suite.storage")) throws {
        self.path = path
        self.logger = logger
        do {
            pool = try Self.openPool(path: path)
        } catch {
            throw Self.mapError(error, doing: "open the storage index at \(path)")
        }
    }

    /// Throws once the index is closed.
    func checkOpen() throws {
        if isClosed.load(ordering: .relaxed) {
            throw StorageError(
                .storage, "the storage index at \(path) is closed", hint: "open a new SQLiteStorageIndex")
        }
    }

    /// Runs a read transaction off the cooperative pool.
    func read<T: Sendable>(_ action: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpen()
        do {
            return try await pool.read(body)
        } catch {
            throw Self.mapError(error, doing: action)
        }
    }

    /// Runs a write transaction off the cooperative pool.
    func write<T: Sendable>(_ action: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpen()
        do {
            return try await pool.write(body)
        } catch {
            throw Self.mapError(error, doing: action)
        }
    }

    /// `error` as a ``StorageError`` (`.storage` unless it already is one; cancellation as `.cancelled`).
    static func mapError(_ error: any Error, doing action: String) -> StorageError {
        if let error = error as? StorageError { return error }
        if error is CancellationError {
            return StorageError(.cancelled, "cancelled while trying to \(action)", underlying: error)
        }
        return StorageError(
            .storage, "cannot \(action): \(error)",
            hint: "check the disk space and the permissions of the index file's directory", underlying: error)
    }
}

extension SQLiteStorageIndex: StorageIndex {
    public func close() async throws {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        do {
            try pool.close()
        } catch {
            throw Self.mapError(error, doing: "close the storage index at \(path)")
        }
    }
}
