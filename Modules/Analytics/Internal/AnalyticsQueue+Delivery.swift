package import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A record leased from the queue, with its position and delivery history.
package struct QueuedRecord: Sendable {
    /// Its position in the queue (logging order).
    package var seq: Int64
    /// The record.
    package var record: AnalyticsRecord
    /// Failed attempts so far.
    package var attempts: Int
}

extension AnalyticsQueue {
    /// Appends `records`; a record whose id is already queued is skipped.
    package func append(_ records: [AnalyticsRecord]) async throws {
        try await append(records, state: [])
    }

    /// Appends `records` and writes the manager's `state` changes in one transaction.
    func append(_ records: [AnalyticsRecord], state: [AnalyticsStoredState.Change]) async throws {
        let rows = try records.map { ($0.id.uuidString.lowercased(), try $0.queueJSON()) }
        try await write("append to the queue") { db in
            let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO queue (id, record) VALUES (?, ?)")
            for (id, data) in rows { try statement.execute(arguments: [id, data]) }
            try Self.apply(state, in: db)
        }
    }

    /// Leases up to `limit` due records after position `afterSeq`, in order, until `now + leaseDuration`.
    package func lease(limit: Int, after afterSeq: Int64, now: Date) async throws -> [QueuedRecord] {
        let time = now.timeIntervalSince1970
        let until = time + leaseDuration
        let owner = Int64(getpid())
        let rows = try await write("lease records from the queue") { db in
            try Self.releaseLeasesOfDeadProcesses(db, now: time, except: owner)
            // Walks seq from `afterSeq` (the `+` keeps SQLite off any index on those columns, which would sort every
            // due record on each lease): each record is read once per delivery pass, however long the queue.
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT seq, record, attempts FROM queue
                        WHERE +failed = 0 AND seq > ? AND +next_attempt_at <= ?
                            AND (lease_until IS NULL OR lease_until <= ?)
                        ORDER BY seq LIMIT ?
                        """), arguments: [afterSeq, time, time, limit])
            let seqs: [Int64] = rows.map { $0["seq"] }
            if !seqs.isEmpty {
                let placeholders = seqs.map { _ in "?" }.joined(separator: ",")
                try db.execute(
                    sql: "UPDATE queue SET lease_until = ?, lease_owner = ? WHERE seq IN (\(placeholders))",
                    arguments: StatementArguments(
                        [until, owner] + seqs.map { $0 as any DatabaseValueConvertible }))
            }
            return rows.map { row in (row["seq"] as Int64, row["record"] as Data, row["attempts"] as Int) }
        }
        let decoder = JSONDecoder()
        var leased: [QueuedRecord] = []
        var unreadable: [Int64] = []
        for (seq, data, attempts) in rows {
            if let record = try? decoder.decode(AnalyticsRecord.self, from: data) {
                leased.append(QueuedRecord(seq: seq, record: record, attempts: attempts))
            } else {
                unreadable.append(seq)
            }
        }
        if !unreadable.isEmpty {
            let seqs = unreadable
            try await write("mark unreadable records failed") { db in
                for seq in seqs {
                    try db.execute(
                        sql: "UPDATE queue SET failed = 1, lease_until = NULL, last_error = ? WHERE seq = ?",
                        arguments: ["the queued record cannot be decoded", seq])
                }
            }
        }
        return leased
    }

    /// Clears the live leases held by processes that no longer exist (never this process's own).
    static func releaseLeasesOfDeadProcesses(_ db: Database, now: Double, except owner: Int64) throws {
        let owners = try Int64.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT DISTINCT lease_owner FROM queue
                    WHERE lease_until IS NOT NULL AND lease_until > ? AND lease_owner IS NOT NULL
                    """), arguments: [now])
        for pid in owners where pid != owner && pid > 0 && pid <= Int64(Int32.max) {
            guard kill(pid_t(pid), 0) != 0, errno == ESRCH else { continue }
            try db.execute(
                sql: "UPDATE queue SET lease_until = NULL, lease_owner = NULL WHERE lease_owner = ?", arguments: [pid])
        }
    }

    /// Settles a delivered batch in one transaction: `delivered` leave the queue, `rejected` become failed with their
    /// reason, `retry` wait until `retryAt(attempts)` (or become failed once `maximumAttempts` is reached).
    package func settle(
        delivered: [Int64], rejected: [(Int64, String)], retry: [(QueuedRecord, String)], now: Date,
        policy: AnalyticsRetryPolicy
    ) async throws {
        let time = now.timeIntervalSince1970
        let retries = retry.map { item, reason in
            let attempts = item.attempts + 1
            return (
                item.seq, attempts, reason, time + policy.delay(afterAttempts: attempts),
                attempts >= policy.maximumAttempts
            )
        }
        try await write("settle a delivered batch") { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM queue WHERE seq = ?")
            for seq in delivered { try delete.execute(arguments: [seq]) }
            let reject = try db.cachedStatement(
                sql: "UPDATE queue SET failed = 1, lease_until = NULL, last_error = ? WHERE seq = ?")
            for (seq, reason) in rejected { try reject.execute(arguments: [reason, seq]) }
            let reschedule = try db.cachedStatement(
                sql: """
                    UPDATE queue SET attempts = ?, last_error = ?, next_attempt_at = ?, lease_until = NULL,
                        failed = ? WHERE seq = ?
                    """)
            for (seq, attempts, reason, next, exhausted) in retries {
                try reschedule.execute(arguments: [
                    attempts, exhausted ? "\(reason) (after \(attempts) attempts)" : reason, next, exhausted, seq,
                ])
            }
        }
    }

    /// Removes every record, pending, in flight or failed (opt-out).
    func purge() async throws {
        try await write("purge the queue") { db in try db.execute(sql: "DELETE FROM queue") }
    }

    /// Every queued record's id, in order (for tests and the CLI).
    func queuedIDs() async throws -> [UUID] {
        try await read("list the queue") { db in
            try String.fetchAll(db, sql: "SELECT id FROM queue ORDER BY seq").compactMap(UUID.init(uuidString:))
        }
    }
}
