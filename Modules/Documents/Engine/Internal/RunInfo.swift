import Foundation
import GRDB

/// A run's row.
struct RunInfo {
    var id: Int64
    var seq: Int64
    var tier: Int
    var entries: Int64

    /// The number of visible runs.
    static func count(_ db: Database) throws -> Int {
        let select = try SQLiteStatement(db, "SELECT count(*) FROM index_runs WHERE tier >= 0")
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : 0
    }

    /// Every run, oldest first (the order of precedence, newest winning, is the reverse).
    static func all(_ db: Database) throws -> [RunInfo] {
        // A run being built by a background merge (tier -1) is invisible until it replaces its inputs.
        let select = try SQLiteStatement(
            db, "SELECT id, seq, tier, entries FROM index_runs WHERE tier >= 0 ORDER BY seq, id")
        defer { select.reset() }
        var runs: [RunInfo] = []
        while try select.step() {
            runs.append(
                RunInfo(id: select.int64(0), seq: select.int64(1), tier: Int(select.int64(2)), entries: select.int64(3))
            )
        }
        return runs
    }
}
