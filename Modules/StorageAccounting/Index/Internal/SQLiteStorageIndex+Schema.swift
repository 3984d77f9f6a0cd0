import GRDB
import SuiteCore

// The index's tables (schema v1):
// - `items`: one row per item. `path` and `unit` are BLOBs (file names are bytes); `unit` is the scan unit the file
//   was found in (NULL for items recorded by the app). Times are nanoseconds since 1970. `dev`/`ino` are the bit
//   patterns of the UInt64s. Indexes: `id` (unique), (service, groupId), (root, unit), allocated, and a partial index
//   on (dev, ino) holding only rows with nlink > 1, which is all the hard-link arithmetic reads (since v2 it covers
//   the columns that arithmetic needs: nlink, service, groupId, category, logical, allocated).
// - `group_totals`: items and bytes per (service, groupId, category), kept by the write path in the same transaction
//   (every link counted). Rows at zero items are deleted.
// - `link_corrections` (v3): what each bucket (total, service, group, category) subtracts so an inode counts once in
//   it, kept by the write path in the same transaction (SQLiteStorageIndex+Links.swift). Rows at zero are deleted.
// - `scans`: per root, the current scan (id, service, layout, started, finished).
// - `scan_units`: the units the current scan of a root has committed (what a resumed scan skips).
// - `directories`: every directory a scan walked, with its modification time: the cheap reconciliation.
extension SQLiteStorageIndex {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE items (
                        id TEXT NOT NULL UNIQUE,
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
                    CREATE INDEX items_group ON items(service, groupId);
                    CREATE INDEX items_unit ON items(root, unit) WHERE root IS NOT NULL;
                    CREATE INDEX items_allocated ON items(allocated);
                    CREATE INDEX items_links ON items(dev, ino) WHERE nlink > 1;
                    CREATE TABLE group_totals (
                        service TEXT NOT NULL,
                        groupId TEXT NOT NULL,
                        category INTEGER NOT NULL,
                        items INTEGER NOT NULL,
                        logical INTEGER NOT NULL,
                        allocated INTEGER NOT NULL,
                        PRIMARY KEY (service, groupId, category)
                    ) WITHOUT ROWID;
                    CREATE TABLE scans (
                        root TEXT PRIMARY KEY,
                        scanId TEXT NOT NULL,
                        service TEXT NOT NULL,
                        layout TEXT NOT NULL,
                        startedAt INTEGER NOT NULL,
                        finishedAt INTEGER
                    );
                    CREATE TABLE scan_units (
                        root TEXT NOT NULL,
                        unit BLOB NOT NULL,
                        scanId TEXT NOT NULL,
                        PRIMARY KEY (root, unit)
                    ) WITHOUT ROWID;
                    CREATE TABLE directories (
                        root TEXT NOT NULL,
                        path BLOB NOT NULL,
                        unit BLOB NOT NULL,
                        mtime INTEGER NOT NULL,
                        PRIMARY KEY (root, path)
                    ) WITHOUT ROWID;
                    CREATE INDEX directories_unit ON directories(root, unit);
                    """)
        }
        // v2: `items_links` covers what the hard-link correction reads, so totals and group lists read only the
        // partial index, not one table row per linked file.
        migrator.registerMigration("v2 covering items_links") { db in
            try db.execute(
                sql: """
                    DROP INDEX items_links;
                    CREATE INDEX items_links ON items(dev, ino, nlink, service, groupId, category, logical, allocated)
                        WHERE nlink > 1;
                    """)
        }
        // v3: the hard-link corrections of the whole index, kept at write time, so totals and the group list read
        // no item rows at all.
        migrator.registerMigration("v3 link corrections") { db in try createLinkCorrections(db) }
        // v4: the unique id index is a named index, so a first scan can build it at its end (SQLiteStorageIndex+Bulk).
        migrator.registerMigration("v4 droppable item indexes") { db in try recreateItemsWithDroppableIndexes(db) }
        return migrator
    }()

    /// Opens the pool in WAL mode with `synchronous = NORMAL` and migrates it; refuses another program's database.
    static func openPool(path: String) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.label = "suite.storage"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -16384")
            }
        }
        return try FirstOpen.retrying {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try claim(pool, path: path)
            try migrator.migrate(pool)
            return pool
        }
    }

    /// Sets the writer's durability and refuses a database with tables that are not ours.
    private static func claim(_ pool: DatabasePool, path: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            let ours: Set<String> = [
                "items", "group_totals", "link_corrections", "scans", "scan_units", "directories", "grdb_migrations",
            ]
            if let stranger = tables.first(where: { !ours.contains($0) }) {
                throw StorageError(
                    .storage, "\(path) is not a storage index (it has a table '\(stranger)')",
                    hint: "point the index at its own file, e.g. <data directory>/storage.sqlite")
            }
        }
    }
}
