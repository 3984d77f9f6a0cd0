import Foundation
import GRDB
import Logging
import SuiteCore
import Synchronization

extension SQLiteDocumentEngine {
    /// Runs a read in a snapshot of the database, synchronously, on the calling thread.
    ///
    /// Only for short, bounded reads: it blocks the calling (cooperative) thread for one SQLite read (why: README).
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
    /// A small write (`inline`: a commit of at most ``inlineWriteLimit`` mutations, metadata) runs synchronously on the
    /// calling task's thread, behind an asynchronous gate that lets one task of this process at a time into SQLite. It
    /// never waits for another process there: it takes the write lock without a busy timeout, and when another
    /// connection holds it, the write goes to GRDB's queue instead (saying so in a debug log line), where it waits (up
    /// to the 10-second busy timeout) without holding a cooperative thread. A larger write always goes through GRDB's
    /// asynchronous `pool.write`.
    func write<T: Sendable>(inline: Bool = true, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try checkOpen()
        do {
            if inline {
                if !writeGate.tryLock() { await writeGate.lock() }
                defer { writeGate.unlock() }
                if let result = try writeNow(body) { return result }
                // Another process holds the write lock: wait for it on GRDB's queue, not on this thread.
                logger.debug("another connection holds the write lock; waiting for it", metadata: ["path": "\(path)"])
                return try await pool.write(body)
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

    /// The busy timeout of the writer connection outside inline attempts (GRDB's `busyMode`, in milliseconds).
    static let busyTimeoutMilliseconds = 10_000

    /// Runs `body` in an immediate transaction on the calling thread if the write lock is free now; `nil` when another
    /// connection holds it (nothing ran).
    private func writeNow<T>(_ body: (Database) throws -> T) throws -> T? {
        try pool.writeWithoutTransaction { db -> T? in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Self.busyTimeoutMilliseconds)") }
            do {
                try db.beginTransaction(.immediate)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return nil
            }
            do {
                let result = try body(db)
                try db.commit()
                return result
            } catch {
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }

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
