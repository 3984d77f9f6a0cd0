@_spi(Engine) import Documents
import Logging
import NIOCore
import PostgresNIO

/// A large commit of new documents (a bulk import's chunk) written with `COPY … FROM STDIN`: PostgreSQL inserts
/// copied rows a page at a time, where `commit_v3`'s `INSERT … SELECT FROM unnest(…)` inserts them one by one.
extension PostgresDocumentEngine {
    /// Writes `copy` in one transaction on `connection`: it takes the commit lock (the `state` row, as `commit_v3`
    /// does, so commits from every server stay serialised and their sequences in commit order), checks that none of
    /// the written documents exists, copies the documents and their index entries, adds the change log's row,
    /// advances `state` and notifies listeners, then commits. When a written document exists already (COPY only
    /// inserts), the same transaction runs `commit_v3` instead. Either way the commit applies whole or not at all:
    /// a failure or a lost connection before `COMMIT` leaves nothing, and `COMMIT` answers once it is durable.
    ///
    /// Returns `commit_v3`'s answer: the sequence, no failed check, and the create times (`nil`: all the commit's).
    func commitByCopy(
        _ copy: PostgresCopyCommit, _ prepared: PostgresPreparedCommit, _ commitTime: Int64,
        on connection: PostgresConnection
    ) async throws -> (Int64, Int?, Int64?, [Int64]?) {
        try await Self.inTransaction(connection, logger: logger) {
            let (last, rewrites) = try await lockForCopy(copy, on: connection)
            if rewrites { return try await callCommitFunction(prepared, commitTime, on: connection) }
            let sequence = last + 1
            try await copyRows(
                copy.documentRows(version: sequence, time: commitTime), into: "documents",
                columns: PostgresCopyCommit.documentColumns, on: connection)
            if copy.entryRows.count > 0 {
                try await copyRows(
                    copy.entryRows.buffer, into: "entries", columns: PostgresCopyCommit.entryColumns, on: connection)
            }
            try await connection.query(copy.logStatement(sequence: sequence, time: commitTime), logger: logger)
            return (sequence, nil, nil, nil)
        }
    }

    /// Locks the `state` row for the commit; returns the last sequence and whether any of the copy's documents
    /// exists.
    private func lockForCopy(_ copy: PostgresCopyCommit, on connection: PostgresConnection) async throws -> (
        Int64, Bool
    ) {
        let rows = try await connection.query(
            """
            SELECT st.last_sequence,
                EXISTS (SELECT 1 FROM \(unescaped: schema).documents d WHERE d.path = ANY(\(copy.paths)::text[]))
            FROM \(unescaped: schema).state st WHERE st.id = 1 FOR UPDATE
            """, logger: logger)
        var answer: (Int64, Bool)?
        for try await row in rows.decode((Int64, Bool).self) where answer == nil { answer = row }
        guard let answer else { throw DocumentsError(.corrupted, "schema '\(schema)' has no state row") }
        return answer
    }

    /// Sends `rows` (COPY's text format) into `table` of the engine's schema (every connection's `search_path`), in
    /// messages of at most ``copyMessageBytes``, so that the server parses while the rest arrives.
    private func copyRows(
        _ rows: ByteBuffer, into table: String, columns: [String], on connection: PostgresConnection
    ) async throws {
        try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
            var rows = rows
            while rows.readableBytes > 0,
                let piece = rows.readSlice(length: min(rows.readableBytes, Self.copyMessageBytes))
            {
                try await writer.write(piece)
            }
        }
    }

    /// The largest `CopyData` message a copy sends.
    static var copyMessageBytes: Int { 256 * 1024 }
}
