import GRDB
import Synchronization

/// The SQLite store's entry count and bytes, kept in memory instead of a row that every store would rewrite.
///
/// Within the process they are authoritative: each write transaction adjusts them. Another connection (another
/// process, another store on the same file) may have written meanwhile, so a transaction first compares the file's
/// `PRAGMA data_version` (which changes only when *another* connection commits) with the one they were counted at,
/// and counts again from `recency` when it differs. A write that fails forgets them (``invalidate()``).
final class CacheTotals: Sendable {
    struct Value: Sendable {
        var entries: Int
        var bytes: Int
    }

    private let state = Mutex<(value: Value, dataVersion: Int64)?>(nil)

    /// The totals as of the current write transaction, counted again if another connection committed since.
    func current(_ db: Database) throws -> Value {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        if let known = state.withLock({ $0 }), known.dataVersion == version { return known.value }
        let value = try Self.count(db)
        state.withLock { $0 = (value, version) }
        return value
    }

    /// Adds `entries` and `bytes` (negative for deletions) to the totals, within a write transaction. Unknown totals
    /// stay unknown, and totals another connection made stale are counted again (this change included) by the
    /// transaction's next ``current(_:)``, so a write may adjust them before reading them.
    func add(entries: Int, bytes: Int) {
        state.withLock { state in
            state?.value.entries += entries
            state?.value.bytes += bytes
        }
    }

    /// Forgets the totals (a write transaction failed: they may count what was rolled back).
    func invalidate() {
        state.withLock { $0 = nil }
    }

    /// Counts the entries and their bytes (a scan of `recency`'s narrow pages).
    static func count(_ db: Database) throws -> Value {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT count(*), coalesce(sum(cost), 0) FROM recency"))
        return Value(entries: row?[0] ?? 0, bytes: row?[1] ?? 0)
    }
}
