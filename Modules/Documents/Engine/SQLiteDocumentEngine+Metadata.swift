import Foundation
import GRDB

extension SQLiteDocumentEngine {
    /// The metadata value stored under `key`, or `nil`.
    @_spi(Engine) public func metadata(forKey key: String) async throws -> [UInt8]? {
        try read { db in
            let select = try SQLiteStatement(db, "SELECT value FROM metadata WHERE meta_key = ?1")
            defer { select.reset() }
            select.bind(key, at: 1)
            return try select.step() ? select.bytes(0) : nil
        }
    }

    /// Stores or (with `nil`) removes a metadata value; durable when this returns.
    @_spi(Engine) public func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        try await write { db in try Self.setMetadata(value, forKey: key, db) }
    }

    /// Reads and rewrites a metadata value in one (`IMMEDIATE`) write transaction: another process's write waits for
    /// it, so nothing comes between the read and the write.
    @_spi(Engine) public func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?
    ) async throws {
        try await write { db in
            let select = try SQLiteStatement(db, "SELECT value FROM metadata WHERE meta_key = ?1")
            select.bind(key, at: 1)
            let current = try select.step() ? select.bytes(0) : nil
            select.reset()
            try Self.setMetadata(try transform(current), forKey: key, db)
        }
    }

    private static func setMetadata(_ value: [UInt8]?, forKey key: String, _ db: Database) throws {
        if let value {
            let upsert = try SQLiteStatement(db, "INSERT OR REPLACE INTO metadata (meta_key, value) VALUES (?1, ?2)")
            upsert.bind(key, at: 1)
            upsert.bind(value, at: 2)
            try upsert.run()
        } else {
            let delete = try SQLiteStatement(db, "DELETE FROM metadata WHERE meta_key = ?1")
            delete.bind(key, at: 1)
            try delete.run()
        }
    }
}
