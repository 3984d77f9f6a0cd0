import GRDB
import SuiteCore

// The cache database's tables (schema v3):
// - `entries`: one row per key (a rowid table: no AUTOINCREMENT, whose `sqlite_sequence` row was a page per insert);
//   `value` inline or NULL with `file` naming the value file; `size` the value's bytes; `expiresAt` for reads;
//   `metadata` in `CacheBinaryCodec`'s form. Only `key` is indexed: each index is a page more per store.
// - `recency`: each entry's access tick (indexed: the eviction order), `cost` (what counts against the limits) and
//   `expiresAt` again, in a narrow table of its own so that writing a batch of reads' accesses rewrites a few small
//   pages, not the rows holding the values, and so that the totals and `removeExpired` scan small pages (an index
//   on `expiresAt` cost every store with a lifetime, as every HTTP response has, a page).
// - `tags`: (tag, key) pairs; `tags` and `recency` rows go with their entry (foreign keys, cascade).
// The totals (entries, bytes) are not stored: each process keeps them in memory (`CacheTotals`), counted from `recency`
// at its first write and again whenever another connection has committed since its last one.
extension SQLiteCacheStore {
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // v1 kept the access tick in `entries`, v2 the totals in a table kept by triggers; a file of either schema gets
        // v3's tables instead (its entries are dropped — it is a cache — and its value files, which no row names any
        // more, go as orphans).
        migrator.registerMigration("v1") { _ in }
        migrator.registerMigration("v2") { _ in }
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    DROP TABLE IF EXISTS tags;
                    DROP TABLE IF EXISTS recency;
                    DROP TABLE IF EXISTS entries;
                    DROP TABLE IF EXISTS totals;
                    CREATE TABLE entries (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL UNIQUE,
                        value BLOB,
                        file TEXT,
                        size INTEGER NOT NULL,
                        expiresAt INTEGER,
                        metadata BLOB NOT NULL
                    );
                    CREATE TABLE recency (
                        id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
                        access INTEGER NOT NULL,
                        cost INTEGER NOT NULL,
                        expiresAt INTEGER
                    );
                    CREATE INDEX recency_access ON recency(access);
                    CREATE TABLE tags (
                        tag TEXT NOT NULL,
                        key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
                        PRIMARY KEY (tag, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX tags_key ON tags(key);
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
        return try FirstOpen.retrying {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try claim(pool, path: path)
            try migrator.migrate(pool)
            return pool
        }
    }

    /// Sets the writer's durability and refuses a database some other program wrote (tables, but not ours) rather
    /// than migrate it.
    private static func claim(_ pool: DatabasePool, path: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            let ours: Set<String> = ["entries", "recency", "tags", "totals", "grdb_migrations"]
            if let stranger = tables.first(where: { !ours.contains($0) }) {
                throw CacheError(
                    .storage, "\(path) is not a cache database (it has a table '\(stranger)')",
                    hint: "point the cache at its own file, e.g. <data directory>/cache.sqlite")
            }
        }
    }
}
