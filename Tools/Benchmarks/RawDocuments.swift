import Documents
import Foundation
import GRDB

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// One table of encoded bodies keyed by path, plus a change log, in a WAL `DatabasePool` configured like the SQLite
/// engine (`synchronous`; a 64 MiB writer page cache, the engine's is 16 MiB). Statements go through the SQLite C API on GRDB's cached
/// statements, as the engine's do, so the limit is as tight as GRDB allows.
final class RawDocuments: Sendable {
    let pool: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: db.configuration.readonly ? "PRAGMA cache_size = -8192" : "PRAGMA cache_size = -65536")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE documents (path TEXT PRIMARY KEY NOT NULL, body BLOB NOT NULL);
                    CREATE TABLE changes (id INTEGER PRIMARY KEY, path TEXT NOT NULL);
                    """)
        }
    }

    func close() throws { try pool.close() }

    /// Inserts `bodies[range]` at `paths[range]` in one transaction.
    func insert(paths: [String], bodies: [[UInt8]], range: Range<Int>) throws {
        try pool.write { db in
            let insert = try RawStatement(db, "INSERT INTO documents (path, body) VALUES (?1, ?2)")
            for i in range {
                insert.bind(paths[i], at: 1)
                insert.bind(bodies[i], at: 2)
                try insert.run()
            }
        }
    }

    /// The stored bytes at `path`, in a read transaction of its own.
    func read(path: String) throws -> [UInt8]? {
        try pool.read { db in try Self.read(db, path: path) }
    }

    /// ``read(path:)`` through GRDB's async API (a hop to the reader's dispatch queue and back), as the engine reads.
    func readAsync(path: String) async throws -> [UInt8]? {
        try await pool.read { db in try Self.read(db, path: path) }
    }

    private static func read(_ db: Database, path: String) throws -> [UInt8]? {
        let select = try RawStatement(db, "SELECT body FROM documents WHERE path = ?1")
        defer { select.reset() }
        select.bind(path, at: 1)
        return try select.step() ? select.bytes(0) : nil
    }

    /// Writes one document and one change-log row in a transaction of its own.
    func writeOne(path: String, body: [UInt8]) throws {
        try pool.write { db in try Self.writeOne(db, path: path, body: body) }
    }

    /// ``writeOne(path:body:)`` through GRDB's async API, as the engine writes.
    func writeOneAsync(path: String, body: [UInt8]) async throws {
        try await pool.write { db in try Self.writeOne(db, path: path, body: body) }
    }

    private static func writeOne(_ db: Database, path: String, body: [UInt8]) throws {
        let upsert = try RawStatement(db, "INSERT OR REPLACE INTO documents (path, body) VALUES (?1, ?2)")
        upsert.bind(path, at: 1)
        upsert.bind(body, at: 2)
        try upsert.run()
        let log = try RawStatement(db, "INSERT INTO changes (path) VALUES (?1)")
        log.bind(path, at: 1)
        try log.run()
    }
}

/// Binds and steps a GRDB cached statement through the SQLite C API.
struct RawStatement {
    let handle: OpaquePointer

    init(_ db: Database, _ sql: String) throws {
        handle = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(handle)
    }

    func bind(_ value: String, at index: Int32) {
        var value = value
        value.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), transient)
            }
        }
    }

    func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ value: [UInt8], at index: Int32) {
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), transient)
        }
    }

    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code))
    }

    func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    func reset() { sqlite3_reset(handle) }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column), count > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the call returns.
private var transient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
