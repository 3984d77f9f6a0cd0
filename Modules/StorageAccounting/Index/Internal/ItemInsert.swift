import Foundation
import GRDB

#if canImport(GRDBSQLite)
    import GRDBSQLite
#elseif canImport(SQLite3)
    import SQLite3
#endif

/// Binds an item's columns to the cached `INSERT INTO items` straight through the SQLite C API and runs it: the scan's
/// hot path, without building a `StatementArguments` (an array of existentials) per row.
struct ItemInsert {
    private let handle: OpaquePointer
    private let connection: OpaquePointer?
    private let sql: String

    init(_ db: Database, sql: String) throws {
        let statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        self.sql = sql
    }

    /// Binds `item` (with its category code and scan unit) in ``SQLiteStorageIndex/itemColumns`` order, steps the
    /// statement to its end and resets it.
    func run(_ item: StorageItem, category: Int, unit: [UInt8]?) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        text(item.id, 1)
        text(item.serviceType, 2)
        text(item.groupId, 3)
        text(item.contentId, 4)
        text(item.contentSubId, 5)
        text(item.contentType, 6)
        sqlite3_bind_int64(handle, 7, Int64(category))
        sqlite3_bind_int64(handle, 8, item.sizeInBytes)
        sqlite3_bind_int64(handle, 9, item.allocatedBytes)
        sqlite3_bind_int64(handle, 10, SQLiteStorageIndex.nanoseconds(item.createdDate))
        sqlite3_bind_int64(handle, 11, SQLiteStorageIndex.nanoseconds(item.modifiedDate))
        text(item.fileName, 12)
        text(item.additionalData, 13)
        text(item.root, 14)
        blob(item.path?.bytes, 15)
        blob(unit, 16)
        if let device = item.device { sqlite3_bind_int64(handle, 17, Int64(bitPattern: device)) }
        if let inode = item.inode { sqlite3_bind_int64(handle, 18, Int64(bitPattern: inode)) }
        sqlite3_bind_int64(handle, 19, Int64(item.linkCount))
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error \(code)"
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
    }

    /// Binds a mapped file of a scan (``MappedFile``, its text in `bytes`) like ``run(_:category:unit:)`` binds the
    /// item it stands for, with `root` and `unit` as they are, and runs the statement. Returns whether a row was
    /// inserted (with `ON CONFLICT … DO NOTHING`, none when the id is indexed already).
    func run(
        _ file: MappedFile, bytes: UnsafeRawBufferPointer, root: UnsafeRawBufferPointer, unit: UnsafeRawBufferPointer
    ) throws -> Bool {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        text(file.id, bytes, 1)
        text(file.service, bytes, 2)
        text(file.groupId, bytes, 3)
        text(file.contentId, bytes, 4)
        text(file.contentSubId, bytes, 5)
        text(file.contentType, bytes, 6)
        sqlite3_bind_int64(handle, 7, Int64(file.category))
        sqlite3_bind_int64(handle, 8, file.logical)
        sqlite3_bind_int64(handle, 9, file.allocated)
        // Through `Date`, as the item would be: the stored value is exactly the one `StorageItem` gives.
        let modified = SQLiteStorageIndex.date(nanoseconds: file.modified)
        let created = file.created.map { SQLiteStorageIndex.date(nanoseconds: $0) } ?? modified
        sqlite3_bind_int64(handle, 10, SQLiteStorageIndex.nanoseconds(created))
        sqlite3_bind_int64(handle, 11, SQLiteStorageIndex.nanoseconds(modified))
        text(file.fileName, bytes, 12)
        staticText(root, 14)
        blob(file.path, bytes, 15)
        blob(unit, 16)
        sqlite3_bind_int64(handle, 17, Int64(bitPattern: file.device))
        sqlite3_bind_int64(handle, 18, Int64(bitPattern: file.inode))
        sqlite3_bind_int64(handle, 19, Int64(file.linkCount))
        let code = sqlite3_step(handle)
        let changes = connection.map { sqlite3_changes($0) } ?? 1
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "error \(code)"
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        return changes > 0
    }

    /// Binds the span's bytes as TEXT without copying them (they outlive the step); NULL for a missing span.
    private func text(_ span: ByteSpan, _ bytes: UnsafeRawBufferPointer, _ index: Int32) {
        guard !span.isNone else { return }
        let start = bytes.baseAddress.map { $0 + Int(span.start) } ?? UnsafeRawPointer(bitPattern: 1)!
        _ = sqlite3_bind_text(
            handle, index, start.assumingMemoryBound(to: CChar.self), span.count, sqliteStatic)
    }

    /// Binds the span's bytes as a BLOB without copying them; an empty BLOB when empty.
    private func blob(_ span: ByteSpan, _ bytes: UnsafeRawBufferPointer, _ index: Int32) {
        guard span.count > 0, let base = bytes.baseAddress else {
            _ = sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        _ = sqlite3_bind_blob(handle, index, base + Int(span.start), span.count, sqliteStatic)
    }

    private func staticText(_ bytes: UnsafeRawBufferPointer, _ index: Int32) {
        let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        _ = sqlite3_bind_text(
            handle, index, start.assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteStatic)
    }

    private func blob(_ bytes: UnsafeRawBufferPointer, _ index: Int32) {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            _ = sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        _ = sqlite3_bind_blob(handle, index, base, Int32(bytes.count), sqliteStatic)
    }

    /// Binds `value` as TEXT (NULL when nil; unbound parameters are NULL).
    private func text(_ value: String?, _ index: Int32) {
        guard var value else { return }
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

    /// Binds `bytes` as a BLOB (NULL when nil; an empty BLOB when empty).
    private func blob(_ bytes: [UInt8]?, _ index: Int32) {
        guard let bytes else { return }
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                _ = sqlite3_bind_blob(handle, index, base, Int32(buffer.count), sqliteTransient)
            } else {
                _ = sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }
}

/// `SQLITE_STATIC`: the bound bytes stay valid and unchanged until the statement is reset.
private var sqliteStatic: sqlite3_destructor_type? { nil }

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
