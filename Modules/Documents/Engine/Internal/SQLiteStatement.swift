import GRDB

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// Thin, allocation-free access to a GRDB cached statement through the SQLite C API, for the engine's hot paths:
/// binds `[UInt8]` and `String` without going through `Data` / `StatementArguments`, reads columns straight into
/// Swift values, and always resets the statement after use (a statement left mid-step would pin a read snapshot).
struct SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?

    /// Takes the connection's cached statement for `sql`, reset and with its bindings cleared.
    init(_ db: Database, _ sql: String) throws {
        guard db.sqliteConnection != nil else {
            throw DocumentsError(.storage, "the documents database is closed", hint: "open the engine again")
        }
        let statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (1-based indexes)

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    _ = sqlite3_bind_text(handle, index, chars, Int32(buffer.count), sqliteTransient)
                }
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
            }
        }
    }

    /// Binds UTF-8 bytes as TEXT.
    func bindText(_ utf8: UnsafeRawBufferPointer, at index: Int32) {
        if let base = utf8.baseAddress, utf8.count > 0 {
            _ = sqlite3_bind_text(
                handle, index, base.assumingMemoryBound(to: CChar.self), Int32(utf8.count), sqliteTransient)
        } else {
            _ = sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
        }
    }

    func bind(_ value: [UInt8], at index: Int32) {
        value.withUnsafeBytes { buffer in bind(buffer, at: index) }
    }

    func bind(_ buffer: UnsafeRawBufferPointer, at index: Int32) {
        if let base = buffer.baseAddress, buffer.count > 0 {
            sqlite3_bind_blob(handle, index, base, Int32(buffer.count), sqliteTransient)
        } else {
            // A NULL pointer would bind SQL NULL; an empty key or body is a zero-length blob.
            sqlite3_bind_zeroblob(handle, index, 0)
        }
    }

    // MARK: Stepping

    /// Steps once: `true` when a row is available, `false` when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(code)
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws {
        defer { reset() }
        while try step() {}
    }

    func reset() {
        sqlite3_reset(handle)
    }

    // MARK: Columns (0-based indexes)

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer, count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Calls `body` with the column's bytes, valid only inside `body`.
    func withBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count))
    }

    /// Like ``withBytes(_:_:)``, with `nil` for a NULL column.
    func withOptionalBytes<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        if isNull(column) { return try body(nil) }
        return try withBytes(column, body)
    }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private func error(_ code: Int32) -> DocumentsError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error \(code)"
        return SQLiteDocumentEngine.mapError(DatabaseError(resultCode: ResultCode(rawValue: code), message: message))
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// A statement taken from the connection's cache when first used (finding a cached statement hashes its SQL): for
/// statements a transaction may not need at all.
struct LazyStatement {
    let sql: String
    private var statement: SQLiteStatement?

    init(_ sql: String) { self.sql = sql }

    mutating func get(_ db: Database) throws -> SQLiteStatement {
        if let statement { return statement }
        let taken = try SQLiteStatement(db, sql)
        statement = taken
        return taken
    }
}
