import Foundation
import GRDB
import Logging
import Synchronization

extension SQLiteDocumentEngine {
    /// Runs a read in a snapshot of the database, synchronously, on the calling thread.
    ///
    /// The engine's reads are short and bounded (point lookups, index range scans, pages of a collection or of the
    /// change log), so they run through GRDB's synchronous `pool.read`: a read may block the calling (cooperative)
    /// thread for the duration of one SQLite read — microseconds to a few milliseconds — which GRDB documents as
    /// acceptable for short reads. The asynchronous `pool.read` would hop to a reader's dispatch queue and back, which
    /// measured 50–60 µs per call against about 10 µs for the whole synchronous point read. Readers never wait for
    /// the writer (WAL); a read waits only when every reader connection of the pool is busy.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try checkOpen()
        do {
            return try pool.read(body)
        } catch {
            throw Self.mapError(error, path: path)
        }
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .sequentiallyConsistent) {
            throw DocumentsError(
                .storage, "the documents database ('\(path)') is closed", hint: "open the engine again")
        }
    }

    /// Runs a write transaction.
    ///
    /// A small write (`inline`: a commit of at most ``inlineWriteLimit`` mutations, metadata) runs synchronously on the calling
    /// task's thread, behind an asynchronous gate that lets one task of this process at a time into SQLite: waiting
    /// for this process's other writes suspends the task instead of blocking a thread. It saves the hop to GRDB's
    /// writer queue and back (two thread wake-ups): single-document commits measured 7.6k → 13–14k/s. What still
    /// blocks the thread: the write itself (tens of microseconds; milliseconds when it flushes or merges index runs,
    /// or checkpoints), and another *process* holding the file's write lock (up to the 10-second busy timeout).
    ///
    /// A larger write (a bulk import's chunk, an index backfill or drop, which take a good fraction of a second) goes
    /// through GRDB's asynchronous `pool.write`, on GRDB's queue, so it never holds a cooperative thread that long.
    func write<T: Sendable>(inline: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpen()
        do {
            if inline {
                if !writeGate.tryLock() { await writeGate.lock() }
                defer { writeGate.unlock() }
                return try writeNow(body)
            }
            return try await pool.write(body)
        } catch let error as CancellationError {
            throw error  // GRDB rolled the transaction back: nothing was written.
        } catch {
            let mapped = Self.mapError(error, path: path)
            if mapped.code != .preconditionFailed {
                logger.warning("documents write failed", metadata: ["path": "\(path)", "error": "\(mapped)"])
            }
            throw mapped
        }
    }

    /// Commits of at most this many mutations run inline (see ``write(inline:_:)``).
    static let inlineWriteLimit = 64

    private func writeNow<T>(_ body: (Database) throws -> T) throws -> T { try pool.write(body) }

    /// Maps an error to a ``DocumentsError``: SQLite's corruption codes to `.corrupted`, other SQLite errors to
    /// `.storage`, with the original as `underlying`. (The accessors pass `CancellationError` through unmapped.)
    static func mapError(_ error: any Error, path: String? = nil) -> DocumentsError {
        if let error = error as? DocumentsError { return error }
        let file = path.map { " ('\($0)')" } ?? ""
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return DocumentsError(
                    .corrupted,
                    "the documents database\(file) is corrupted or is not a SQLite database: \(error.message ?? "")",
                    hint: "restore it from a backup, or point the documents engine at a new file",
                    underlying: error
                )
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return DocumentsError(
                    .storage,
                    "the documents database\(file) is locked: \(error.message ?? "")",
                    hint: "another process may be writing to it",
                    underlying: error
                )
            case .SQLITE_FULL:
                return DocumentsError(
                    .storage,
                    "the disk holding the documents database\(file) is full",
                    hint: "free some space and retry; nothing was written",
                    underlying: error
                )
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY:
                return DocumentsError(
                    .storage,
                    "cannot open the documents database\(file) for writing: \(error.message ?? "")",
                    hint: "check that the directory exists and is writable",
                    underlying: error
                )
            default:
                return DocumentsError(
                    .storage,
                    "SQLite failed on the documents database\(file): \(error.message ?? "\(error.resultCode)")",
                    underlying: error
                )
            }
        }
        return DocumentsError(.storage, "the documents database\(file) failed: \(error)", underlying: error)
    }
}
