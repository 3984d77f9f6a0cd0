import Foundation

/// Opening an SQLite store whose file does not exist yet, from several connections at once (threads of one process or
/// several processes), races in two places SQLite's busy timeout does not cover:
/// - switching a new file to WAL needs an exclusive lock, and SQLite returns `SQLITE_BUSY` at once rather than wait
///   when waiting could deadlock;
/// - GRDB's migrator reads which migrations are applied before it takes the write lock, so two connections can both
///   run the first migration, and the second fails with "table … already exists" or a unique constraint on
///   `grdb_migrations`.
///
/// Both clear once the other connection finished, so the whole open (pool and migrations) is tried again: busy errors
/// until `deadline` seconds passed, a migration collision at most `collisionAttempts` times (the next try finds the
/// migration applied and skips it, though with several connections and migrations it can meet the next one; a
/// migration that is simply wrong fails the same way each time, and that error is thrown after about a second). Any
/// other error is thrown at once.
package enum FirstOpen {
    /// Runs `open` until it succeeds, throws an error that is not one of the races above, or the limits pass.
    package static func retrying<T>(
        deadline: Double = 10, collisionAttempts: Int = 20, _ open: () throws -> T
    ) throws -> T {
        let start = ContinuousClock.now
        var collisions = 0
        var pause = 0.002
        while true {
            do {
                return try open()
            } catch {
                switch race(error) {
                case .busy where ContinuousClock.now - start < .seconds(deadline): break
                case .collision where collisions + 1 < collisionAttempts: collisions += 1
                default: throw error
                }
            }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.05)
        }
    }

    enum Race { case busy, collision, none }

    /// Which race `error` shows. GRDB's `DatabaseError` is read through its `CustomNSError` conformance, so this module
    /// needs no GRDB: its domain is "GRDB.DatabaseError" and its code the extended SQLite result code.
    static func race(_ error: any Error) -> Race {
        let nsError = error as NSError
        guard nsError.domain == "GRDB.DatabaseError" else { return .none }
        let primary = nsError.code & 0xff
        if primary == 5 || primary == 6 { return .busy }  // SQLITE_BUSY, SQLITE_LOCKED
        let message = nsError.localizedDescription
        let collides = ["already exists", "duplicate column name", "grdb_migrations"]
        return collides.contains(where: message.contains) ? .collision : .none
    }
}
