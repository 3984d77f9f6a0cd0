import GRDB

// A first scan into an empty index inserts its rows without three secondary indexes of `items` and builds them once at
// its end (a sort each, several times cheaper than updating their B-trees row by row). While they are missing:
// - every row of `items` belongs to a unit the current scan has committed (an interrupted unit rolls back), so a
//   unit's replace has nothing to delete and its ids are new;
// - any other write (record, remove, a rescan, the end of the scan, another scan starting on a non-empty index)
//   builds them first, in its own transaction, and then runs as usual;
// - queries stay exact (totals, groups and link corrections are kept as always); lookups by id or size scan the table
//   until the indexes exist.
// Two indexes are always kept: `items_links` (rows with nlink > 1, what the link corrections look up) and `items_unit`
// (root, unit): a first scan commits its units in their sorted order with growing rowids, so its rows land at the end
// of that index, which costs the writer less than sorting it at the end costs the scan (measured: 60 ms of 840 on
// 200k files).
extension SQLiteStorageIndex {
    /// The indexes of `items` that ``ensureIndexes(_:)`` builds when missing: the three a first scan drops, and
    /// `items_unit`, which first scans of earlier versions dropped too.
    static let deferredIndexes = [
        "CREATE UNIQUE INDEX IF NOT EXISTS items_id ON items(id)",
        "CREATE INDEX IF NOT EXISTS items_group ON items(service, groupId)",
        "CREATE INDEX IF NOT EXISTS items_allocated ON items(allocated)",
        "CREATE INDEX IF NOT EXISTS items_unit ON items(root, unit) WHERE root IS NOT NULL",
    ]

    /// The writer's cache while a first scan loads (KiB): rows are appended, so the table needs few pages cached, and
    /// the memory is left to the index builds at its end.
    static let loadCacheSize = 2_048

    /// Whether the deferred indexes are missing (a first scan is loading, or was interrupted).
    static func isBulkLoading(_ db: Database) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'items_id'") == 0
    }

    /// Drops the deferred indexes when `items` is empty (a first scan starts); builds them otherwise.
    static func beginBulkLoadIfEmpty(_ db: Database) throws {
        guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM items LIMIT 1)") == 0 else {
            try ensureIndexes(db)
            return
        }
        for name in ["items_id", "items_group", "items_allocated"] {
            try db.execute(sql: "DROP INDEX IF EXISTS \(name)")
        }
    }

    /// Builds the deferred indexes if they are missing. Two rows with one id can only come from scans of nested roots
    /// loading at once; the later row stays, as a replace would have left it.
    static func ensureIndexes(_ db: Database) throws {
        guard try isBulkLoading(db) else { return }
        // Each CREATE INDEX sorts in memory up to the cache size, then in temporary files. The load ran with
        // ``loadCacheSize``, so 8 MB here keeps the scan's peak memory below what a 16 MB cache during the inserts
        // alone reached, with half the spills of 4 MB.
        try db.execute(sql: "PRAGMA cache_size = -8192")
        defer { try? db.execute(sql: "PRAGMA cache_size = -16384") }
        do {
            try db.execute(sql: deferredIndexes[0])
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            try db.execute(sql: "CREATE INDEX items_id_duplicates ON items(id)")
            var delta = GroupTotalsDelta()
            _ = try deleteItems(
                db,
                where: """
                    rowid IN (SELECT a.rowid FROM items AS a JOIN items AS b ON a.id = b.id AND a.rowid < b.rowid)
                    """, [], delta: &delta)
            try delta.apply(db)
            try db.execute(sql: "DROP INDEX items_id_duplicates")
            try db.execute(sql: deferredIndexes[0])
        }
        for sql in deferredIndexes.dropFirst() { try db.execute(sql: sql) }
    }

    /// Builds the deferred indexes if a first scan left them missing.
    func buildDeferredIndexes() async throws {
        try await write("index the items of \(path)") { db in try Self.ensureIndexes(db) }
    }

    /// Migration v4: `items` without its inline `UNIQUE` (a unique index `items_id` instead, which a first scan can
    /// drop and build at its end).
    static func recreateItemsWithDroppableIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE items_v4 (
                    id TEXT NOT NULL,
                    service TEXT NOT NULL,
                    groupId TEXT NOT NULL,
                    contentId TEXT NOT NULL,
                    contentSubId TEXT,
                    contentType TEXT NOT NULL,
                    category INTEGER NOT NULL,
                    logical INTEGER NOT NULL,
                    allocated INTEGER NOT NULL,
                    created INTEGER NOT NULL,
                    modified INTEGER NOT NULL,
                    fileName TEXT NOT NULL,
                    additionalData TEXT,
                    root TEXT,
                    path BLOB,
                    unit BLOB,
                    dev INTEGER,
                    ino INTEGER,
                    nlink INTEGER NOT NULL
                );
                INSERT INTO items_v4 (rowid, \(itemColumns)) SELECT rowid, \(itemColumns) FROM items;
                DROP TABLE items;
                ALTER TABLE items_v4 RENAME TO items;
                CREATE INDEX items_links ON items(dev, ino, nlink, service, groupId, category, logical, allocated)
                    WHERE nlink > 1;
                """)
        for sql in deferredIndexes { try db.execute(sql: sql) }
    }
}
