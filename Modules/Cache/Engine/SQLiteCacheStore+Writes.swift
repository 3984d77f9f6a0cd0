import Dispatch
import Foundation
import GRDB
import SuiteCore

extension SQLiteCacheStore {
    /// What a write transaction leaves to do after it commits.
    struct WriteResult: Sendable {
        var evicted: [CacheEntrySummary] = []
        /// Value files no row names any more: deleted after the commit.
        var obsoleteFiles: [String] = []
    }

    @discardableResult
    public func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        try checkOpen()
        let cost = entry.cost
        guard cost <= configuration.byteLimit else {
            throw CacheError(
                .tooLarge,
                "the entry '\(entry.key)' takes \(cost) bytes, more than the SQLite cache's \(configuration.byteLimit)",
                hint: "raise SQLiteCacheStore.Configuration(byteLimit:)")
        }
        let metadata = CacheBinaryCodec.encode(entry.metadata)
        let file = entry.value.count > configuration.inlineLimit ? try await writeValueFile(entry.value) : nil
        if let delay = configuration.writeBehind {
            try await stage(entry, metadata: metadata, file: file, delay: delay)
            return CacheStoreOutcome()
        }
        do {
            let action = "store the cache entry '\(entry.key)'"
            let result = try await writeDatabase(action, inline: accesses.pendingCount <= Self.inlineAccessLimit) {
                db in
                try self.applyAccesses(db)
                var result = WriteResult()
                try self.insert(entry, cost: cost, metadata: metadata, file: file, db, into: &result)
                try self.evict(db, sparing: entry.key, into: &result)
                return result
            }
            files.removeValues(result.obsoleteFiles)
            return CacheStoreOutcome(evicted: result.evicted)
        } catch {
            if let file { files.removeValues([file]) }
            throw error
        }
    }

    /// Pending accesses up to which a store runs inline (``writeDatabase(_:inline:_:)``): it writes them too.
    static let inlineAccessLimit = 256

    /// Writes a value file on a thread of its own: the write and its `fsync` must not hold a cooperative thread.
    private func writeValueFile(_ bytes: [UInt8]) async throws -> String {
        let files = files
        return try await runBlocking(on: .global()) { try files.writeValue(bytes) }
    }

    /// Writes the row under the entry's key (updating a replaced one in place: half the pages of a delete and an
    /// insert), its recency and its tags, and counts it in the totals (``evict(_:sparing:into:)`` then reads them).
    ///
    /// A new key costs one statement: the insert that finds no row under it. Only a replaced key reads its old row.
    private func insert(
        _ entry: CacheEntry, cost: Int, metadata: [UInt8], file: String?, _ db: Database,
        into result: inout WriteResult
    ) throws {
        let inline: DatabaseValue = file == nil ? entry.value.withUnsafeBytes { Data($0) }.databaseValue : .null
        let row: StatementArguments = [
            inline, file, entry.value.count, entry.metadata.expiresAt, Data(metadata), entry.key,
        ]
        try db.cachedStatement(
            sql: """
                INSERT INTO entries (value, file, size, expiresAt, metadata, key) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO NOTHING
                """
        ).execute(arguments: row)
        if db.changesCount > 0 {
            try db.cachedStatement(sql: "INSERT INTO recency (id, access, cost, expiresAt) VALUES (?, ?, ?, ?)")
                .execute(arguments: [db.lastInsertedRowID, accesses.nextTick(), cost, entry.metadata.expiresAt])
            totals.add(entries: 1, bytes: cost)
        } else {
            let replaced = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, file, cost FROM entries JOIN recency USING (id) WHERE key = ?"),
                arguments: [entry.key])
            guard let replaced else {
                throw CacheError(
                    .storage, "the cache entry '\(entry.key)' in \(path) has no recency row",
                    hint: "delete the cache file; the store recreates it")
            }
            let id: Int64 = replaced[0]
            if let obsolete: String = replaced[1] { result.obsoleteFiles.append(obsolete) }
            try db.cachedStatement(
                sql: "UPDATE entries SET value = ?, file = ?, size = ?, expiresAt = ?, metadata = ? WHERE key = ?"
            ).execute(arguments: row)
            try db.cachedStatement(sql: "UPDATE recency SET access = ?, cost = ?, expiresAt = ? WHERE id = ?")
                .execute(arguments: [accesses.nextTick(), cost, entry.metadata.expiresAt, id])
            try db.cachedStatement(sql: "DELETE FROM tags WHERE key = ?").execute(arguments: [entry.key])
            totals.add(entries: 0, bytes: cost - (replaced[2] as Int))
        }
        if !entry.metadata.tags.isEmpty {
            let tag = try db.cachedStatement(sql: "INSERT OR IGNORE INTO tags (tag, key) VALUES (?, ?)")
            for name in entry.metadata.tags { try tag.execute(arguments: [name, entry.key]) }
        }
    }

    /// Writes staged entries (write-behind) in staging order, then evicts once for all of them (sparing the last).
    func applyStaged(_ staged: [CacheStage.Staged], _ db: Database, into result: inout WriteResult) throws {
        guard let last = staged.last else { return }
        for item in staged {
            try insert(item.entry, cost: item.entry.cost, metadata: item.metadata, file: item.file, db, into: &result)
        }
        try evict(db, sparing: last.entry.key, into: &result)
    }

    /// Deletes the least recently accessed entries (never `key`) until the store is within its limits.
    private func evict(_ db: Database, sparing key: String, into result: inout WriteResult) throws {
        let totals = try self.totals.current(db)
        var entries = totals.entries
        var bytes = totals.bytes
        let countLimit = configuration.countLimit ?? .max
        guard bytes > configuration.byteLimit || entries > countLimit else { return }
        var victims: [(key: String, cost: Int)] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT e.key, e.size, e.metadata, r.cost, e.file FROM recency r JOIN entries e ON e.id = r.id
                ORDER BY r.access
                """)
        while bytes > configuration.byteLimit || entries > countLimit, let row = try rows.next() {
            let summary = try Self.summary(row)
            guard summary.key != key else { continue }
            victims.append((key: summary.key, cost: row[3] as Int))
            result.evicted.append(summary)
            if let file: String = row[4] { result.obsoleteFiles.append(file) }
            bytes -= row[3] as Int
            entries -= 1
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM entries WHERE key = ?")
        for victim in victims {
            try delete.execute(arguments: [victim.key])
            self.totals.add(entries: -1, bytes: -victim.cost)
        }
    }

    /// Writes the accesses reads recorded, and deletes the entries they found expired (if still expired).
    func applyAccesses(_ db: Database) throws {
        let (accesses, expired) = accesses.drain()
        if !accesses.isEmpty {
            let update = try db.cachedStatement(
                sql: """
                    UPDATE recency SET access = max(access, ?) WHERE id = (SELECT id FROM entries WHERE key = ?)
                    """)
            for (key, tick) in accesses { try update.execute(arguments: [tick, key]) }
        }
        var obsolete: [String] = []
        for (key, now) in expired {
            obsolete += try deleteEntries(db, where: "key = ? AND entries.expiresAt <= ?", [key, now]).files
        }
        // Safe before the commit: these rows are gone in this transaction, and a failed commit only leaves expired
        // rows without their values (a read then misses, as it should).
        files.removeValues(obsolete)
    }

    /// Writes the recorded accesses now (a read crossing ``CacheAccessLog/flushThreshold``, ``close()``).
    func flushAccesses() async throws {
        try await writeDatabase("record cache accesses") { db in try self.applyAccesses(db) }
    }
}
