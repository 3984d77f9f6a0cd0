@_spi(Engine) import Documents
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A large commit of new documents (a bulk import's chunk) written with `COPY … FROM STDIN`: PostgreSQL inserts
/// copied rows a page at a time, where `commit_v3`'s `INSERT … SELECT FROM unnest(…)` inserts them one by one.
extension PostgresDocumentEngine {
    /// Writes `copy` in one transaction on `connection`: one statement takes the commit lock (it updates the `state`
    /// row, which `commit_v3` locks first, so commits from every server stay serialised and their sequences in
    /// commit order) and the next sequence, adds the change log's row and notifies listeners (delivered at commit);
    /// then the documents and their index entries are copied, and the transaction commits. It applies whole or not
    /// at all: a failure or a lost connection before `COMMIT` leaves nothing, and `COMMIT` answers once it is durable.
    ///
    /// COPY only inserts. The documents' primary key is the check that none of them exists: when one does, the
    /// copy fails, its transaction is rolled back, and `commit_v3` writes the commit instead. Checking first would
    /// cost every chunk of an import a probe of 5,000 paths, so the engine checks first (under the lock, in the same
    /// transaction) only after a copy found an existing document — a re-import then logs one unique-key error on
    /// the server, not one per chunk.
    ///
    /// Returns `commit_v3`'s answer: the sequence, no failed check, and the create times (`nil`: all the commit's).
    func commitByCopy(
        _ copy: PostgresCopyCommit, _ prepared: PostgresPreparedCommit, _ commitTime: Int64,
        on connection: PostgresConnection
    ) async throws -> (Int64, Int?, Int64?, [Int64]?) {
        let checksFirst = copyChecksFirst.load(ordering: .relaxed)
        do {
            return try await Self.inTransaction(connection, logger: logger) {
                if checksFirst {
                    if try await lockFindingAny(of: copy.paths, on: connection) {
                        return try await callCommitFunction(prepared, commitTime, on: connection)
                    }
                    copyChecksFirst.store(false, ordering: .relaxed)
                }
                let sequence = try await advance(copy, commitTime, on: connection)
                try await copyRows(
                    copy.documentRows(version: sequence, time: commitTime), into: "documents",
                    columns: PostgresCopyCommit.documentColumns, on: connection)
                if copy.entryRows.count > 0 {
                    try await copyRows(
                        copy.entryRows.buffer, into: "entries", columns: PostgresCopyCommit.entryColumns,
                        on: connection)
                }
                return (sequence, nil, nil, nil)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == Self.uniqueViolation {
            // A document exists (or, in a damaged index, an entry): rolled back; commit_v3 rewrites it (or fails).
            copyChecksFirst.store(true, ordering: .relaxed)
            let answer = try await callCommitFunction(prepared, commitTime, on: connection)
            try await confirmCommitted(connection)
            return answer
        }
    }

    /// SQLSTATE `unique_violation`.
    private static let uniqueViolation = "23505"

    /// Locks the `state` row for the commit; returns whether any of `paths` is a document.
    private func lockFindingAny(of paths: [String], on connection: PostgresConnection) async throws -> Bool {
        let rows = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM \(unescaped: schema).documents d WHERE d.path = ANY(\(paths)::text[]))
            FROM \(unescaped: schema).state st WHERE st.id = 1 FOR UPDATE
            """, logger: logger)
        for try await exists in rows.decode(Bool.self) { return exists }
        throw DocumentsError(.corrupted, "schema '\(schema)' has no state row")
    }

    /// Runs the copy's log statement (``PostgresCopyCommit/logStatement(time:)``); returns the commit's sequence.
    private func advance(_ copy: PostgresCopyCommit, _ commitTime: Int64, on connection: PostgresConnection)
        async throws -> Int64
    {
        let rows = try await connection.query(copy.logStatement(time: commitTime), logger: logger)
        for try await sequence in rows.decode(Int64.self) { return sequence }
        throw DocumentsError(.corrupted, "schema '\(schema)' has no state row")
    }

    /// Sends `rows` (COPY's text format) into `table` of the engine's schema (every connection's `search_path`), in
    /// messages of at most ``copyMessageBytes``, so that the server parses while the rest arrives.
    private func copyRows(
        _ rows: ByteBuffer, into table: String, columns: [String], on connection: PostgresConnection
    ) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var rows = rows
            while let piece = rows.readSlice(length: min(rows.readableBytes, Self.copyMessageBytes)),
                piece.readableBytes > 0
            {
                try await writer.write(piece)
            }
        }
    }

    /// The largest `CopyData` message a copy sends.
    static var copyMessageBytes: Int { 256 * 1024 }
}
