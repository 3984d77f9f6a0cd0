import GRDB
import Logging
import Synchronization

// Ending an engine: the graceful, asynchronous `shutdown()` for async code (the CLI, `DocumentStore.close()`), the
// synchronous `close()` for the rest, and what the index maintenance is doing meanwhile.

extension SQLiteDocumentEngine {
    /// Starts whatever index flush or merge is due and waits (without blocking a task's thread) until none is left
    /// or running: for a caller that wants the index fully merged now (tests, benchmarks); ``shutdown()`` does not.
    @_spi(Engine) public func waitForBackgroundWork() async {
        guard !isClosed.load(ordering: .sequentiallyConsistent) else { return }
        maintenance.kick()
        await maintenance.idle()
    }

    /// Closes the engine gracefully, leaving the file cheap for the next process to pick up.
    ///
    /// In order: the index flush or merge under way runs to its end (it is not thrown away); if more than 8,192
    /// index operations are still pending (each process would read them from the change log on its first query),
    /// they are flushed into a run; merges are done only if more than 24 runs are left (`maximumRuns`, the bound a
    /// commit keeps; merges merely due are left to the next process); and the database is closed. Later calls
    /// fail with a ``DocumentsError``, as after ``close()``; calling `shutdown()` again returns at once (without
    /// waiting for the first call to end).
    ///
    /// The calling task is suspended, never blocked: the work runs on the engine's maintenance queue, which resumes
    /// it. Call it after the last write; a write racing with it either lands before the database closes (and is
    /// durable, if pending) or fails. A process killed during a shutdown loses nothing: every step is its own
    /// transaction, and the partial run of a cut-short flush or merge is deleted by the next open.
    ///
    /// ```swift
    /// let engine = try SQLiteDocumentEngine(path: path)
    /// _ = try await engine.commit(mutations, commitTime: now)
    /// await engine.shutdown()
    /// ```
    public func shutdown() async {
        guard !isClosed.load(ordering: .sequentiallyConsistent),
            isShuttingDown.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        do {
            if hasCommitted.load(ordering: .relaxed) { try await pruneChangeLog() }
        } catch {
            logger.debug("change-log pruning failed", metadata: ["path": "\(path)", "error": "\(error)"])
        }
        await maintenance.finish(leaveBehind: tuning.leaveBehind) { [self] in
            do {
                try closePool()
            } catch {
                logger.warning(
                    "closing the documents database failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Closes the database at once, synchronously: an index flush or merge under way is abandoned (its partial run
    /// deleted), pending index operations stay in the change log, and the call blocks until that step has ended.
    /// Prefer ``shutdown()`` from async code. Later calls fail with a ``DocumentsError``; the file stays consistent.
    /// Closing a closed engine does nothing.
    public func close() throws {
        isShuttingDown.store(true, ordering: .sequentiallyConsistent)
        maintenance.stop()
        try closePool()
    }

    /// Marks the engine closed and closes the pool, once: the readers first, so that the writer is the file's last
    /// connection in this process and SQLite checkpoints the log and deletes it as it closes (GRDB's `close()` closes
    /// the writer first, which left a read-only connection last and the log whole — 43 MB after an import — for every
    /// later process to read on open).
    private func closePool() throws {
        guard !isClosed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        pointReader.close()
        pool.releaseMemory()  // closes the idle reader connections
        do { try pool.close() } catch { throw Self.mapError(error, path: path) }
    }

    /// The index's state: operations pending in the change log, runs, and this engine's maintenance.
    ///
    /// The counts are read from the file (one read of the pending change rows, off the calling thread), so they
    /// include other processes' commits.
    @_spi(Engine) public func indexStatus() async throws -> IndexMaintenanceStatus? {
        try checkOpen()
        let (pending, runs): (Int, [RunInfo])
        do {
            (pending, runs) = try await pool.read { db in
                let flushed = try SQLiteIndexRuns.flushedThrough(db)
                return (try SQLiteIndexRuns.pendingOperationCount(db, after: flushed), try RunInfo.all(db))
            }
        } catch {
            throw Self.mapError(error, path: path)
        }
        let maintenance = maintenance.status()
        return IndexMaintenanceStatus(
            pendingOperations: pending, runs: runs.count, runEntries: runs.reduce(0) { $0 + Int($1.entries) },
            isMaintenanceRunning: maintenance.running, lastMaintenanceError: maintenance.lastError)
    }
}
