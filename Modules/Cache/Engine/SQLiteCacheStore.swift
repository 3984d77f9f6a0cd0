import Foundation
import GRDB
public import Logging
import SuiteCore
import Synchronization

/// A ``CacheStore`` on disk: one SQLite file in WAL mode through a GRDB `DatabasePool`, values larger than
/// ``Configuration-swift.struct/inlineLimit`` as files in a directory beside it (`<file>.values/`).
///
/// ```swift
/// let store = try SQLiteCacheStore(path: dataDirectory + "/cache.sqlite",
///                                  configuration: .init(byteLimit: 512 << 20), logger: logger)
/// try await store.store(CacheEntry(key: "avatar/42", value: bytes, metadata: CacheMetadata(tags: ["user:42"])))
/// try await store.removeEntries(taggedWith: "user:42")
/// ```
///
/// ## Limits and eviction
///
/// Each entry counts ``CacheEntry/cost`` bytes. Every ``store(_:)`` evicts, inside its own write transaction, the
/// least recently accessed entries until the store is within its byte and count limits, so the limits hold when it
/// returns. A read's access is recorded in memory and written in batches (with the next write, every 4,096 reads, and
/// at ``close()``) instead of turning every hit into a write; a crash forgets at most those recency updates.
///
/// ## Durability
///
/// `PRAGMA synchronous = NORMAL` in WAL mode (GRDB's default): a `store` returns after its transaction commits to the
/// write-ahead log, so an acknowledged store survives a crash of the process (`kill -9`); after a power loss or an OS
/// crash the file opens consistent but may lack the last commits. That trade (no fsync per commit) is the right one
/// for a cache, whose entries can always be fetched again. A value file is written to a temporary name, synced and
/// renamed *before* its row commits, and deleted only *after* the row is gone, so a row never names a missing file;
/// a crash between the two leaves an orphan file, which the next open deletes.
///
/// ## Write-behind (opt-in)
///
/// With ``Configuration-swift.struct/writeBehind`` set, `store` stages the entry in memory and returns: reads, removals
/// and listings see it at once, and one transaction writes everything staged within that delay (or as soon as
/// ``Configuration-swift.struct/writeBehindLimit`` bytes are staged; the store crossing it waits for that write), as
/// Nuke's `DataCache` does. A store of a small value then costs a few microseconds instead of a commit. The price:
/// a crash of the process loses what was staged (at most the delay's worth of stores: they are misses afterwards, the
/// file stays consistent), and evictions happen when the staged entries are written, so they are reported to the
/// `onEvictions(_:)` handlers instead of in the store's outcome. ``flush()`` writes the staged entries now;
/// ``close()`` does too.
///
/// Log checkpoints (copying the write-ahead log into the database, and syncing both) run in the background on a
/// connection of their own, not in the commit of whichever `store` crosses SQLite's threshold; the log stays under
/// about 16 MiB.
public final class SQLiteCacheStore: Sendable {
    /// The database file.
    public let path: String
    /// The limits the store was opened with.
    public let configuration: Configuration

    let pool: DatabasePool
    let files: CacheValueFiles
    let accesses: CacheAccessLog
    /// This process's entry count and bytes (see ``CacheTotals``).
    let totals = CacheTotals()
    let logger: Logger
    let isClosed = Atomic<Bool>(false)
    /// This process's writes take it (see ``writeDatabase(_:inline:_:)``).
    let writeGate = AsyncGate()
    let checkpointer: CacheCheckpointer
    /// Entries stored and not committed yet (write-behind mode only).
    let stage = CacheStage()
    let evictionHandlers = Mutex<[@Sendable ([CacheEntrySummary]) -> Void]>([])

    /// Opens (creating if needed) the cache database at `path` and its value directory `<path>.values/`, and deletes
    /// value files that no row names (left by a crash between writing a file and committing its row).
    ///
    /// - Throws: ``CacheError`` — `.invalidInput` for a limit out of range, `.storage` when the file cannot be opened
    ///   or is not a cache database.
    public convenience init(
        path: String, configuration: Configuration = Configuration(), logger: Logger = Logger(label: "suite.cache")
    ) throws {
        try self.init(path: path, configuration: configuration, logger: logger, orphanGrace: .seconds(60))
    }

    /// Opens the store; value files without a row are deleted once older than `orphanGrace` (a file younger than that
    /// may belong to another process's store that has not committed its row yet).
    init(path: String, configuration: Configuration, logger: Logger, orphanGrace: Duration) throws {
        try configuration.validate()
        self.path = path
        self.configuration = configuration
        self.logger = logger
        files = CacheValueFiles(directory: path + ".values")
        do {
            pool = try Self.openPool(path: path)
            checkpointer = try CacheCheckpointer(path: path, logger: logger)
            pool.writeWithoutTransaction { [checkpointer] db in checkpointer.install(on: db) }
            try files.createDirectory()
            let (lastAccess, referenced) = try pool.read { db in
                (
                    try Int64.fetchOne(db, sql: "SELECT max(access) FROM recency") ?? 0,
                    Set(try String.fetchAll(db, sql: "SELECT file FROM entries WHERE file IS NOT NULL"))
                )
            }
            accesses = CacheAccessLog(lastTick: lastAccess)
            let removed = files.removeOrphans(keeping: referenced, olderThan: orphanGrace)
            if removed > 0 {
                logger.info("removed orphan cache value files", metadata: ["path": "\(path)", "count": "\(removed)"])
            }
        } catch {
            let mapped = Self.mapError(error, doing: "open the cache database at \(path)")
            logger.error("cannot open cache database", metadata: ["path": "\(path)", "error": "\(mapped)"])
            throw mapped
        }
    }

    /// Throws once the store is closed.
    func checkOpen() throws {
        if isClosed.load(ordering: .relaxed) {
            throw CacheError(.storage, "the cache store at \(path) is closed", hint: "open a new SQLiteCacheStore")
        }
    }

    /// `error` as a ``CacheError`` (`.storage` unless it already is one).
    static func mapError(_ error: any Error, doing action: String) -> CacheError {
        if let error = error as? CacheError { return error }
        return CacheError(
            .storage, "cannot \(action): \(error)",
            hint: "check the disk space and the permissions of the cache directory", underlying: error)
    }
}

extension SQLiteCacheStore: CacheStore {
    public func statistics() async throws -> CacheStoreStatistics {
        try checkOpen()
        try await flushBeforeReading()
        let (entries, bytes) = try readDatabase("read the cache statistics") { db in
            let totals = try CacheTotals.count(db)
            return (totals.entries, totals.bytes)
        }
        return CacheStoreStatistics(
            engine: "sqlite", entries: entries, bytes: bytes, byteLimit: configuration.byteLimit,
            countLimit: configuration.countLimit)
    }

    /// Writes the recorded accesses and closes the database. Later calls throw; a second `close` does nothing.
    public func close() async throws {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        do {
            try await flushAccesses()
            try checkpointer.close()
            try pool.close()
        } catch {
            throw Self.mapError(error, doing: "close the cache database at \(path)")
        }
    }

    /// Runs a short read on the calling thread (a point read costs less than hopping to a reader queue and back).
    func readDatabase<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try pool.read(body)
        } catch {
            throw Self.mapError(error, doing: action)
        }
    }
}
