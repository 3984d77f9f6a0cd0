@_spi(Engine) import Documents
import NIOCore
import PostgresNIO

/// A large commit of unconditional puts (a bulk import's chunk), ready to be written with `COPY … FROM STDIN` instead
/// of `commit_v3`: the `documents` rows and the `entries` rows in COPY's text format, and the change log's row as a
/// statement. Only documents that do not exist yet can be copied (COPY inserts): when one exists, the copy fails on
/// the primary key and the commit goes through `commit_v3` (see ``PostgresDocumentEngine/commitByCopy(_:_:_:on:)``).
///
/// Everything but the commit's sequence and time is encoded here, when the commit is prepared: the bulk importer
/// prepares a chunk while the one before writes.
struct PostgresCopyCommit: Sendable {
    /// The fewest written documents for which a commit is copied: below it, `commit_v3`'s one round trip is cheaper
    /// than a transaction of five statements.
    static let minimumWrites = 1_000

    /// The columns of ``documentRows`` in order; the last three are the commit's (``documentRows(version:time:)``).
    static let documentColumns = [
        "path", "parent", "collection_id", "name_key", "body", "data", "entry_indexes", "entry_keys", "version",
        "create_time", "update_time",
    ]
    static let entryColumns = ["index_name", "key", "path"]

    /// The `documents` rows without their last three columns, each ending at the matching ``documentRowEnds``.
    private var documentRows: PostgresCopyText
    private var documentRowEnds: [Int]
    /// The `entries` rows.
    private(set) var entryRows: PostgresCopyText
    /// The written paths, in the plan's order (to find those that exist already).
    private(set) var paths: [String]
    /// The statement that takes the commit lock and the next sequence, adds the change log's row and notifies; but
    /// for the commit's time (`$3`).
    private var logQuery: PostgresQuery

    /// The copy of `plan`, or `nil` when `plan` is not a large commit of unconditional puts of storable paths and
    /// index names (PostgreSQL's text cannot hold NUL: such a commit goes through `commit_v3`, which refuses it).
    init?(_ plan: PostgresCommitPlan, schema: String, json: Bool) {
        let writes = plan.writes
        guard writes.count >= Self.minimumWrites, plan.checks.isEmpty, plan.requiredSequence == nil,
            writes.allSatisfy({ write in
                write.body != nil && PostgresDocumentEngine.storable(write.path)
                    && write.entries.allSatisfy { PostgresDocumentEngine.storable($0.index) }
            })
        else { return nil }
        var documents = PostgresCopyText(capacity: writes.count * 256)
        var ends: [Int] = []
        ends.reserveCapacity(writes.count)
        var entries = PostgresCopyText(capacity: writes.count * 128)
        for write in writes {
            let body = write.body ?? []
            documents.text(write.path)
            documents.text(write.parts.parent)
            documents.text(write.parts.collectionID)
            documents.bytea(EnginePath.nameKey(write.path))
            documents.bytea(body)
            let jsonText = json ? PostgresJSON.text(body) : ""
            if jsonText.isEmpty { documents.null() } else { documents.text(jsonText) }
            documents.textArray(write.entries.lazy.map(\.index))
            documents.byteaArray(write.entries.lazy.map(\.key))
            ends.append(documents.count)
            documents.endRow()
            for entry in write.entries {
                entries.text(entry.index)
                entries.bytea(entry.key)
                entries.text(write.path)
                entries.endRow()
            }
        }
        let paths = writes.map(\.path)
        let bodies = PostgresByteaArray(elements: writes.map { $0.body ?? [] })
        self.documentRows = documents
        self.documentRowEnds = ends
        self.entryRows = entries
        self.paths = paths
        // Updating the `state` row locks it, as commit_v3's `FOR UPDATE` does, and waits for the commit holding it.
        self.logQuery = """
            WITH advanced AS (
                UPDATE \(unescaped: schema).state SET last_sequence = last_sequence + 1 WHERE id = 1
                RETURNING last_sequence),
            log AS (
                INSERT INTO \(unescaped: schema).changes (sequence, update_time, records, paths, bodies, create_times)
                SELECT a.last_sequence, $3::bigint, cardinality($1::text[]), \(paths)::text[], \(bodies)::bytea[],
                    array_fill($3::bigint, ARRAY[cardinality($1::text[])])
                FROM advanced a)
            SELECT a.last_sequence FROM advanced a
                CROSS JOIN LATERAL pg_notify('\(unescaped: PostgresSchema.channel(schema))', a.last_sequence::text)
            """
    }

    /// The `documents` rows, each ending with the commit's sequence as its version and its time as the create and
    /// update time (the documents are new).
    func documentRows(version: Int64, time: Int64) -> ByteBuffer {
        let tail = Array("\t\(version)\t\(time)\t\(time)\n".utf8)
        var rows = ByteBufferAllocator().buffer(capacity: documentRows.count + tail.count * documentRowEnds.count)
        documentRows.bytes.withUnsafeBytes { bytes in
            var start = 0
            for end in documentRowEnds {
                rows.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                rows.writeBytes(tail)
                start = end + 1  // past the row's own newline
            }
        }
        return rows
    }

    /// The statement that locks the `state` row (or waits for the commit holding it), advances it to the next
    /// sequence, adds the change log's row with `time` and notifies listeners; it answers the sequence.
    func logStatement(time: Int64) -> PostgresQuery {
        var query = logQuery
        query.binds.append(time, context: .default)
        return query
    }
}
