@_spi(Engine) import Documents
import Foundation
import Logging
import NIOCore
import PostgresNIO

extension PostgresDocumentEngine {
    /// A commit whose sequence is a multiple of this (or that writes many documents) runs a prune step afterwards.
    static let pruneInterval: Int64 = 64
    /// The most rows one prune step deletes, about (whole commits; one transaction).
    static let pruneStepRows = 20_000

    /// Change-log records after `sequence`, with the horizon read in the same statement (one snapshot): a read that
    /// starts before the horizon throws ``DocumentsError/Code-swift.struct/resyncRequired``, as the SQLite engine's.
    /// The log has a row per commit: at most `limit` commits are read (each has a record at least), then their
    /// records in order, the first `limit` of them.
    func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        if limit <= 0 || sequence == .max { return [] }
        let records = try await run("reading the change log") { [self] connection in
            var records: [ChangeRecord] = []
            let rows = try await connection.query(
                """
                SELECT h.horizon, c.sequence, c.path, c.body, c.create_time, c.update_time
                FROM (SELECT \(unescaped: PostgresSchema.horizon(schema)) AS horizon) AS h
                LEFT JOIN LATERAL (
                    SELECT c.sequence, u.path, u.body, u.create_time, c.update_time, u.position
                    FROM (
                        SELECT * FROM \(unescaped: schema).changes WHERE sequence > \(sequence)
                        ORDER BY sequence LIMIT \(limit)) AS c
                    CROSS JOIN LATERAL unnest(c.paths, c.bodies, c.create_times)
                        WITH ORDINALITY AS u(path, body, create_time, position)
                    ORDER BY c.sequence, u.position LIMIT \(limit)) AS c ON true
                ORDER BY c.sequence, c.position
                """, logger: logger)
            for try await (horizon, sequenceOfRow, path, body, created, updated) in rows.decode(
                (Int64, Int64?, String?, ByteBuffer?, Int64?, Int64?).self)
            {
                if horizon > 0, sequence < horizon {
                    throw DocumentsError.resyncRequired(after: sequence, horizon: horizon)
                }
                guard let sequenceOfRow, let path else { continue }
                var document: StoredDocument?
                if let body, let created, let updated {
                    document = StoredDocument(
                        path: path, body: Self.bytes(body), version: sequenceOfRow, createTime: created,
                        updateTime: updated)
                }
                records.append(ChangeRecord(sequence: sequenceOfRow, path: path, document: document))
            }
            return records
        }
        return records
    }

    /// The change log's records, horizon and last sequence, in one statement.
    func changeLogStatus() async throws -> ChangeLogStatus? {
        try await run("reading the change log's size") { [self] connection in
            let rows = try await connection.query(
                """
                SELECT (SELECT coalesce(sum(records), 0)::bigint FROM \(unescaped: schema).changes),
                    \(unescaped: PostgresSchema.horizon(schema)),
                    (SELECT last_sequence FROM \(unescaped: schema).state WHERE id = 1)
                """, logger: logger)
            for try await (count, horizon, last) in rows.decode((Int64, Int64, Int64).self) {
                return ChangeLogStatus(records: Int(count), horizon: horizon, lastSequence: last)
            }
            return nil
        }
    }

    /// Prunes the change log down to the `change-log-days` and `change-log-minimum` options, in steps of at most
    /// about 20,000 rows (each one call of `prune_changes`, its own transaction), at most `steps` of them; returns the
    /// rows removed. Commits run a step now and then and ``shutdown()`` runs them until done, as in the SQLite engine.
    /// Several servers may prune at once: one prunes, the others' steps return at once.
    @discardableResult
    func pruneChangeLog(steps: Int = 50) async throws -> Int {
        try await pruneChangeLog(now: Int64(Date().timeIntervalSince1970 * 1_000_000), steps: steps)
    }

    /// ``pruneChangeLog(steps:)`` with the present given in microseconds since the epoch.
    func pruneChangeLog(now: Int64, steps: Int) async throws -> Int {
        let threshold = now - Self.microseconds(options.retention.maximumAge)
        let minimum = options.retention.minimumCount
        var removed = 0
        for _ in 0..<max(1, steps) {
            let (count, more) = try await run("pruning the change log", idempotent: false) {
                [self] connection -> (Int64, Bool) in
                let rows = try await connection.query(
                    """
                    SELECT removed, more FROM \(unescaped: schema).prune_changes(
                        \(threshold)::bigint, \(minimum)::integer, \(Self.pruneStepRows)::integer)
                    """, logger: logger)
                for try await row in rows.decode((Int64, Bool).self) { return row }
                return (0, false)
            }
            removed += Int(count)
            if !more { break }
        }
        return removed
    }

    private static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? Int64.max / 2 : product + attoseconds / 1_000_000_000_000
    }
}
