import GRDB

extension SQLiteCacheStore {
    /// A row as a read finds it.
    struct StoredRow {
        var inline: [UInt8]
        var file: String?
        var size: Int
        var expiresAt: Int64?
        var metadata: [UInt8]
    }

    public func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        try checkOpen()
        if let staged = stagedEntry(forKey: key, now: now) { return staged }
        // Twice at most: a value file can vanish between reading its row and opening it when a writer replaces the
        // entry meanwhile; the second read sees the new row.
        for _ in 0..<2 {
            guard let row = try readDatabase("read the cache entry '\(key)'", { db in try Self.fetchRow(db, key: key) })
            else { return nil }
            if let expiresAt = row.expiresAt, now >= expiresAt {
                accesses.recordExpired(key, now: now)
                return nil
            }
            var value = row.inline
            if let file = row.file {
                guard let bytes = try files.readValue(file, size: row.size) else { continue }
                value = bytes
            }
            guard let metadata = CacheBinaryCodec.decode(row.metadata) else {
                throw CacheError(
                    .storage, "the cache entry '\(key)' has unreadable metadata in \(path)",
                    hint: "remove it with removeEntry(forKey:), or delete the cache file")
            }
            if accesses.recordHit(key) { try await flushAccesses() }
            return CacheEntry(key: key, value: value, metadata: metadata)
        }
        return nil
    }

    static func fetchRow(_ db: Database, key: String) throws -> StoredRow? {
        let statement = try db.cachedStatement(
            sql: "SELECT value, file, size, expiresAt, metadata FROM entries WHERE key = ?")
        let rows = try Row.fetchCursor(statement, arguments: [key])
        guard let row = try rows.next() else { return nil }
        return StoredRow(
            inline: try row.withUnsafeData(atIndex: 0) { $0.map { [UInt8]($0) } ?? [] },
            file: row[1],
            size: row[2],
            expiresAt: row[3],
            metadata: try row.withUnsafeData(atIndex: 4) { $0.map { [UInt8]($0) } ?? [] })
    }

    public func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        try checkOpen()
        guard limit > 0 else { return [] }
        try await flushBeforeReading()
        return try readDatabase("list the cache entries") { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT key, size, metadata FROM entries WHERE key > ? ORDER BY key LIMIT ?",
                arguments: [key ?? "", limit])
            var summaries: [CacheEntrySummary] = []
            while let row = try rows.next() {
                summaries.append(try Self.summary(row))
            }
            return summaries
        }
    }

    /// The summary of a row of (key, size, metadata).
    static func summary(_ row: Row) throws -> CacheEntrySummary {
        let key: String = row[0]
        let metadata = try row.withUnsafeData(atIndex: 2) { data in data.flatMap { CacheBinaryCodec.decode($0) } }
        guard let metadata else {
            throw CacheError(
                .storage, "the cache entry '\(key)' has unreadable metadata",
                hint: "remove it with removeEntry(forKey:), or delete the cache file")
        }
        return CacheEntrySummary(key: key, bytes: row[1], metadata: metadata)
    }
}
