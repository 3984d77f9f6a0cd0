import Documents
import Logging
import NIOCore
import PostgresNIO

// `suite docs index verify|rebuild` on PostgreSQL: each document keeps its own entries (`documents.entry_indexes`,
// `entry_keys`), the authority the `entries` table is compared with and rebuilt from.
extension PostgresDocumentEngine {
    /// Compares the selected indexes with the documents' own entries in one read-only snapshot (`REPEATABLE READ`):
    /// two anti-joins on the server, which returns the count and the first `maximumReported` differences (in index,
    /// path and key order), so the engine's memory is bounded by what it reports. Progress is reported at the end.
    func verifyIndexes(
        _ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?
    ) async throws -> IndexVerification {
        let report = try await run("verifying the indexes") { [self] connection in
            try await Self.inTransaction(connection, logger: logger, readOnlySnapshot: true) {
                let names = try await indexNames(connection).filter(selection.contains)
                if names.isEmpty {
                    return IndexVerification(indexes: 0, entries: 0, differenceCount: 0, differences: [])
                }
                let only = selection.isAll ? nil : names
                var entries = 0
                for try await count in try await connection.query(
                    """
                    SELECT count(*) FROM \(unescaped: schema).documents d, unnest(d.entry_indexes) AS u(index_name)
                    WHERE \(only)::text[] IS NULL OR u.index_name = ANY(\(only)::text[])
                    """, logger: logger
                ).decode(Int64.self) {
                    entries = Int(count)
                }
                let (count, differences) = try await differences(connection, only: only, limit: maximumReported)
                return IndexVerification(
                    indexes: names.count, entries: entries, differenceCount: count, differences: differences)
            }
        }
        progress?(report.entries, report.entries)
        return report
    }

    /// Every difference's count, and the first `limit` of them.
    private func differences(_ connection: PostgresConnection, only: [String]?, limit: Int) async throws
        -> (Int, [IndexDifference])
    {
        let s = schema
        let rows = try await connection.query(
            """
            WITH own AS (
                SELECT u.index_name, u.key, d.path
                FROM \(unescaped: s).documents d, unnest(d.entry_indexes, d.entry_keys) AS u(index_name, key)
                WHERE \(only)::text[] IS NULL OR u.index_name = ANY(\(only)::text[])),
            difference AS (
                SELECT 0 AS kind, o.index_name, o.key, o.path FROM own o
                WHERE NOT EXISTS (
                    SELECT 1 FROM \(unescaped: s).entries e
                    WHERE e.index_name = o.index_name AND e.key = o.key AND e.path = o.path)
                UNION ALL
                SELECT 1, e.index_name, e.key, e.path FROM \(unescaped: s).entries e
                WHERE (\(only)::text[] IS NULL OR e.index_name = ANY(\(only)::text[])) AND NOT EXISTS (
                    SELECT 1 FROM own o WHERE o.index_name = e.index_name AND o.key = e.key AND o.path = e.path))
            SELECT kind, index_name, key, path, count(*) OVER () FROM difference
            ORDER BY index_name, path, key, kind LIMIT \(max(1, limit))
            """, logger: logger)
        var total = 0
        var differences: [IndexDifference] = []
        for try await (kind, index, key, path, count) in rows.decode((Int32, String, ByteBuffer, String, Int64).self) {
            total = Int(count)
            if differences.count < limit {
                differences.append(
                    IndexDifference(
                        kind: kind == 0 ? .missing : .unexpected, index: index, key: Self.bytes(key), path: path))
            }
        }
        return (total, differences)
    }

    /// Replaces the selected indexes' entries with the documents' own, in one transaction under the commit lock (no
    /// commit comes between): readers see the old entries until it commits. Progress is reported at the end.
    func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws -> IndexRebuild {
        let report = try await run("rebuilding the indexes", idempotent: false) { [self] connection in
            try await Self.inTransaction(connection, logger: logger) {
                try await connection.query(
                    "SELECT 1 FROM \(unescaped: schema).state WHERE id = 1 FOR UPDATE", logger: logger)
                let names = try await indexNames(connection).filter(selection.contains)
                if names.isEmpty { return IndexRebuild(indexes: 0, entries: 0) }
                let only = selection.isAll ? nil : names
                try await connection.query(
                    """
                    DELETE FROM \(unescaped: schema).entries
                    WHERE \(only)::text[] IS NULL OR index_name = ANY(\(only)::text[])
                    """, logger: logger)
                var written = 0
                for try await count in try await connection.query(
                    """
                    WITH written AS (
                        INSERT INTO \(unescaped: schema).entries (index_name, key, path)
                        SELECT DISTINCT u.index_name, u.key, d.path
                        FROM \(unescaped: schema).documents d,
                            unnest(d.entry_indexes, d.entry_keys) AS u(index_name, key)
                        WHERE \(only)::text[] IS NULL OR u.index_name = ANY(\(only)::text[])
                        RETURNING 1)
                    SELECT count(*) FROM written
                    """, logger: logger
                ).decode(Int64.self) {
                    written = Int(count)
                }
                return IndexRebuild(indexes: names.count, entries: written)
            }
        }
        progress?(report.entries, report.entries)
        return report
    }

    /// The names of the indexes in `entries` (a loose index scan of its primary key: one seek per name) and of those
    /// the documents' own entries name, sorted.
    private func indexNames(_ connection: PostgresConnection) async throws -> [String] {
        let s = schema
        var names: [String] = []
        for try await name in try await connection.query(
            """
            WITH RECURSIVE scanned(name) AS (
                (SELECT index_name FROM \(unescaped: s).entries ORDER BY index_name LIMIT 1)
                UNION ALL
                SELECT (SELECT e.index_name FROM \(unescaped: s).entries e WHERE e.index_name > scanned.name
                    ORDER BY e.index_name LIMIT 1)
                FROM scanned WHERE scanned.name IS NOT NULL)
            SELECT name FROM scanned WHERE name IS NOT NULL
            UNION
            SELECT DISTINCT unnest(entry_indexes) COLLATE "C" FROM \(unescaped: s).documents
            ORDER BY 1
            """, logger: logger
        ).decode(String.self) {
            names.append(name)
        }
        return names
    }
}
