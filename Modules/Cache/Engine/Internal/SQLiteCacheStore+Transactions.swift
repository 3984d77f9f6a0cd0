import GRDB
import Logging
import SuiteCore

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

extension SQLiteCacheStore {
    /// The writer's busy timeout outside inline attempts (``openPool(path:)`` sets it through GRDB's `busyMode`).
    static let busyTimeoutMilliseconds: Int32 = 10_000

    /// Runs a write transaction, one of this process at a time (``writeGate``).
    ///
    /// An `inline` write (a store, a removal by key: a few rows) runs synchronously on the caller's thread when the
    /// write lock is free: hopping to GRDB's writer queue and back costs more than such a transaction. It never waits
    /// for another process there: it takes the lock without a busy timeout, and when another connection holds it, the
    /// write goes to GRDB's queue (saying so in a debug log line), where it waits (up to the busy timeout) without
    /// holding a cooperative thread. Other writes always go through the queue. Log checkpoints run on a connection of
    /// their own (``CacheCheckpointer``).
    ///
    /// In write-behind mode every write transaction first writes the staged entries (``CacheStage``), so a removal or
    /// a listing after it sees them; the evictions they cause go to the ``onEvictions(_:)`` handlers after the commit.
    func writeDatabase<T: Sendable>(
        _ action: String, inline: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        await writeGate.lock()
        defer { writeGate.unlock() }
        let staged = stage.snapshot()
        let write: @Sendable (Database) throws -> (T, WriteResult) = { db in
            var stagedResult = WriteResult()
            try self.applyStaged(staged.entries, db, into: &stagedResult)
            return (try body(db), stagedResult)
        }
        do {
            if checkpointer.needsCatchUp { await checkpointer.catchUp() }
            let result: T
            let stagedResult: WriteResult
            if inline, let done = try writeNow(write) {
                (result, stagedResult) = done
            } else {
                if inline {
                    logger.debug(
                        "another connection holds the write lock; waiting for it", metadata: ["path": "\(path)"])
                }
                (result, stagedResult) = try await pool.write(write)
            }
            checkpointer.checkpointIfNeeded()
            if !staged.entries.isEmpty || !staged.replacedFiles.isEmpty {
                stage.committed(staged.entries)
                files.removeValues(stagedResult.obsoleteFiles + staged.replacedFiles)
                if !stagedResult.evicted.isEmpty { reportEvictions(stagedResult.evicted) }
            }
            return result
        } catch {
            totals.invalidate()
            throw Self.mapError(error, doing: action)
        }
    }

    /// Runs `body` in an immediate transaction on the calling thread if the write lock is free now; `nil` when another
    /// connection holds it (nothing ran).
    private func writeNow<T>(_ body: (Database) throws -> T) throws -> T? {
        try pool.writeWithoutTransaction { db -> T? in
            let connection = db.sqliteConnection
            sqlite3_busy_timeout(connection, 0)
            defer { sqlite3_busy_timeout(connection, Self.busyTimeoutMilliseconds) }
            // Cached statements: `Database.beginTransaction` and `commit()` prepare theirs anew on every call.
            do {
                try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return nil
            }
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            } catch {
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }
}
