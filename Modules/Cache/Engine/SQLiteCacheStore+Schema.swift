import GRDB

// The cache database's tables (schema v2):
// - `entries`: one row per key; `value` inline or NULL with `file` naming the value file; `size` the value's bytes;
//   `cost` what counts against the byte limit; `expiresAt` for `removeExpired`; `metadata` in `CacheBinaryCodec`'s form.
// - `recency`: each entry's access tick (indexed: the eviction order), in a narrow table of its own so that writing
//   a batch of reads' accesses rewrites a few small pages, not the rows holding the values (this took the disk-tier
//   hit rate from 0.50× to 0.75× of a raw point read). `id`s are AUTOINCREMENT: a stale pending access never lands
//   on a later entry of another key (a replaced entry keeps its row and id, and its store's tick is above any access
//   recorded before it).
// - `tags`: (tag, key) pairs; `tags` and `recency` rows go with their entry (foreign keys, cascade).
// - `totals`: one row, kept by triggers, so the limits are checked without counting.
extension SQLiteCacheStore {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // v1 kept the access tick in `entries`; a file of that schema gets v2's tables instead (its entries are
        // dropped — it is a cache — and its value files, which no row names any more, go as orphans).
        migrator.registerMigration("v1") { _ in }
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    DROP TABLE IF EXISTS tags;
                    DROP TABLE IF EXISTS entries;
                    DROP TABLE IF EXISTS totals;
                    CREATE TABLE entries (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        key TEXT NOT NULL UNIQUE,
                        value BLOB,
                        file TEXT,
                        size INTEGER NOT NULL,
                        cost INTEGER NOT NULL,
                        expiresAt INTEGER,
                        metadata BLOB NOT NULL
                    );
                    CREATE TABLE recency (
                        id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
                        access INTEGER NOT NULL
                    );
                    CREATE INDEX recency_access ON recency(access);
                    CREATE INDEX entries_expiresAt ON entries(expiresAt) WHERE expiresAt IS NOT NULL;
                    CREATE TABLE tags (
                        tag TEXT NOT NULL,
                        key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
                        PRIMARY KEY (tag, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX tags_key ON tags(key);
                    CREATE TABLE totals (
                        id INTEGER PRIMARY KEY CHECK (id = 0),
                        entries INTEGER NOT NULL,
                        bytes INTEGER NOT NULL
                    );
                    INSERT INTO totals VALUES (0, 0, 0);
                    CREATE TRIGGER entries_insert AFTER INSERT ON entries BEGIN
                        UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.cost;
                    END;
                    CREATE TRIGGER entries_delete AFTER DELETE ON entries BEGIN
                        UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.cost;
                    END;
                    CREATE TRIGGER entries_update_cost AFTER UPDATE OF cost ON entries BEGIN
                        UPDATE totals SET bytes = bytes - OLD.cost + NEW.cost;
                    END;
                    """)
        }
        return migrator
    }()

    /// Opens the pool in WAL mode with `synchronous = NORMAL` (see the type's documentation) and migrates it.
    static func openPool(path: String) throws -> DatabasePool {
        var configuration = GRDB.Configuration()
        configuration.label = "suite.cache"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            if !db.configuration.readonly {
                try db.execute(sql: "PRAGMA cache_size = -8192")
            }
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A database some other program wrote (tables, but not ours) is refused rather than migrated.
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            let ours: Set<String> = ["entries", "recency", "tags", "totals", "grdb_migrations"]
            if let stranger = tables.first(where: { !ours.contains($0) }) {
                throw CacheError(
                    .storage, "\(path) is not a cache database (it has a table '\(stranger)')",
                    hint: "point the cache at its own file, e.g. <data directory>/cache.sqlite")
            }
        }
        try migrator.migrate(pool)
        return pool
    }
}
