import Synchronization

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// Read-only SQLite connections of the engine's own, each with the point read prepared once, for the hot path of
/// `suite serve`'s `GET` (``SQLiteDocumentEngine/documents(at:)`` with one path).
///
/// GRDB's reader pool costs a point read its pool checkout, a read-write lock, a dispatch-queue hop and a schema
/// check: about a fifth of a GET's server time. Here a read takes an idle connection from a locked stack, steps its
/// prepared statement on the calling thread, and puts the connection back. In WAL mode a statement is its own read
/// snapshot, as with GRDB's readers; SQLite re-prepares the statement by itself after a schema change.
final class SQLitePointReader: Sendable {
    /// One connection and its prepared statement; used by one thread at a time (taken from and put back on the stack).
    final class Connection: @unchecked Sendable {
        let handle: OpaquePointer
        let select: OpaquePointer

        init(path: String) throws(PointReadFailure) {
            var handle: OpaquePointer?
            let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
            guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
                if let handle { sqlite3_close_v2(handle) }
                throw PointReadFailure(message: "cannot open \(path) for reading")
            }
            sqlite3_busy_timeout(handle, 10_000)
            // As the engine's GRDB readers: map the file, a page cache for what lies beyond.
            sqlite3_exec(handle, "PRAGMA cache_size = -16384; PRAGMA mmap_size = 1073741824", nil, nil, nil)
            var select: OpaquePointer?
            guard
                sqlite3_prepare_v3(
                    handle, SQLitePointReader.select, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &select, nil) == SQLITE_OK,
                let select
            else {
                let message = String(cString: sqlite3_errmsg(handle))
                sqlite3_close_v2(handle)
                throw PointReadFailure(message: message)
            }
            self.handle = handle
            self.select = select
        }

        /// The document at (`parent`, `id`): version, create and update times, body; nil when there is none.
        func read(parent: String, id: String) throws(PointReadFailure) -> (Int64, Int64, Int64, [UInt8])? {
            defer {
                sqlite3_reset(select)
                sqlite3_clear_bindings(select)
            }
            sqlite3_bind_text(select, 1, parent, -1, SQLITE_TRANSIENT_VALUE)
            sqlite3_bind_text(select, 2, id, -1, SQLITE_TRANSIENT_VALUE)
            switch sqlite3_step(select) {
            case SQLITE_ROW:
                let count = Int(sqlite3_column_bytes(select, 3))
                var body = [UInt8](repeating: 0, count: count)
                if count > 0, let bytes = sqlite3_column_blob(select, 3) {
                    body.withUnsafeMutableBytes {
                        $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: count))
                    }
                }
                return (
                    sqlite3_column_int64(select, 0), sqlite3_column_int64(select, 1), sqlite3_column_int64(select, 2),
                    body
                )
            case SQLITE_DONE:
                return nil
            default:
                throw PointReadFailure(message: String(cString: sqlite3_errmsg(handle)))
            }
        }

        deinit {
            sqlite3_finalize(select)
            sqlite3_close_v2(handle)
        }
    }

    /// Why a point read failed (the engine maps it to a ``DocumentsError``).
    struct PointReadFailure: Error {
        var message: String
    }

    /// A document's version, times and body, by (parent, id): the point read here and the engine's reads of several
    /// documents alike.
    static let select = """
        SELECT d.version, d.create_time, d.update_time, c.body FROM documents d \
        CROSS JOIN changes c ON c.id = d.change_id WHERE d.parent = ?1 AND d.doc_id = ?2
        """

    let path: String
    private let idle = Mutex<(connections: [Connection], closed: Bool)>(([], false))
    /// Idle connections kept; more run at once only while that many reads overlap.
    static let keep = 8

    init(path: String) { self.path = path }

    /// Runs `body` with an idle connection (opening one when none is idle).
    func withConnection<T>(_ body: (Connection) throws(PointReadFailure) -> T) throws(PointReadFailure) -> T {
        let connection: Connection
        if let taken = idle.withLock({ $0.connections.popLast() }) {
            connection = taken
        } else {
            connection = try Connection(path: path)
        }
        defer {
            idle.withLock { state in
                if !state.closed, state.connections.count < Self.keep { state.connections.append(connection) }
            }
        }
        return try body(connection)
    }

    /// Closes the idle connections (outside the lock, as they are released); those in use close when their read ends.
    func close() {
        let idleConnections = idle.withLock { state in
            state.closed = true
            defer { state.connections = [] }
            return state.connections
        }
        withExtendedLifetime(idleConnections) {}
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound text.
private let SQLITE_TRANSIENT_VALUE = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
