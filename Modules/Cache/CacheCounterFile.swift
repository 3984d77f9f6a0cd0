import Foundation
import GRDB

/// Lookup counts kept across processes in a small SQLite file, so `suite cache stats` shows the hit ratio of every
/// command that used the cache, not only its own. Each process adds its ``DataCache/counts`` once, when it closes its
/// cache; the additions are atomic, so concurrent processes lose none.
public final class CacheCounterFile: Sendable {
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the counter file at `path`.
    public init(path: String) throws {
        do {
            var configuration = Configuration()
            // Processes closing their caches together take turns: each waits for the lock instead of failing.
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS counts (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL)
                        """)
            }
        } catch {
            throw CacheError(
                .storage, "cannot open the cache counter file \(path)", hint: "check the data directory's permissions",
                underlying: error)
        }
    }

    /// Adds `counts` to the totals.
    public func add(_ counts: DataCache.Counts) throws {
        let pairs = [
            ("hits", counts.hits), ("misses", counts.misses), ("stores", counts.stores),
            ("evictions", counts.evictions), ("errors", counts.errors),
        ].filter { $0.1 != 0 }
        guard !pairs.isEmpty else { return }
        do {
            try queue.write { db in
                for (name, value) in pairs {
                    try db.execute(
                        sql: """
                            INSERT INTO counts (name, value) VALUES (?, ?) \
                            ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                            """, arguments: [name, value])
                }
            }
        } catch {
            throw CacheError(.storage, "cannot update the cache counter file", underlying: error)
        }
    }

    /// The totals so far.
    public func totals() throws -> DataCache.Counts {
        do {
            let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT name, value FROM counts") }
            var counts = DataCache.Counts()
            for row in rows {
                let value: Int = row["value"]
                switch row["name"] as String {
                case "hits": counts.hits = value
                case "misses": counts.misses = value
                case "stores": counts.stores = value
                case "evictions": counts.evictions = value
                case "errors": counts.errors = value
                default: continue
                }
            }
            return counts
        } catch {
            throw CacheError(.storage, "cannot read the cache counter file", underlying: error)
        }
    }

    /// Sets every total back to zero.
    public func reset() throws {
        do {
            try queue.write { db in try db.execute(sql: "DELETE FROM counts") }
        } catch {
            throw CacheError(.storage, "cannot reset the cache counter file", underlying: error)
        }
    }
}
