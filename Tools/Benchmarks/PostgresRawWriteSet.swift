import Foundation
import Logging
import NIOCore
import PostgresNIO
import PostgresTestSupport

/// The second peer of the postgres bulk import (issue 32): the rows the `postgres` engine writes for an import —
/// each document with its listing keys and its own index entries, a row per index entry, a change-log row per chunk —
/// written straight with postgres-nio into tables of the engine's layout (spelled out here: no Suite code), one
/// transaction per chunk of 5,000, by the fastest method measured: `COPY … FROM STDIN` for the documents and the
/// entries, one `INSERT` for the change-log row, the next chunk encoded while the previous one writes. What the
/// plain JSONB peer does not write (every field indexed, two listing indexes, the change log) costs the same here
/// as in the engine; what is left between this peer and ours is Suite's own work (encoding documents, index keys,
/// the plugin ABI, the commit lock, NOTIFY).
///
/// Its input is the rows, read back from the engine's schema before the clock starts.
final class PostgresRawWriteSet: Sendable {
    /// One document's row and its index entries.
    struct Row: Sendable {
        var path: String
        var parent: String
        var collectionID: String
        var nameKey: [UInt8]
        var body: [UInt8]
        var entryIndexes: [String]
        var entryKeys: [[UInt8]]
    }

    private let client: PostgresClient
    private let runner: Task<Void, Never>
    private let logger = Logger(label: "bench.postgres.raw")
    private let schema: String

    /// Connects and creates `schema` with the engine's tables and indexes.
    init(server: PostgresServer, schema: String) async throws {
        let configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: server.port, username: PostgresServer.user, password: PostgresServer.password,
            database: "postgres", tls: .disable)
        let client = PostgresClient(configuration: configuration)
        self.client = client
        self.schema = schema
        runner = Task { await client.run() }
        let s = schema
        for statement in [
            "CREATE SCHEMA \(s)",
            """
            CREATE TABLE \(s).documents (
                path text COLLATE "C" PRIMARY KEY, parent text COLLATE "C" NOT NULL,
                collection_id text COLLATE "C" NOT NULL, name_key bytea NOT NULL, body bytea NOT NULL,
                version bigint NOT NULL, create_time bigint NOT NULL, update_time bigint NOT NULL, data jsonb,
                entry_indexes text[] NOT NULL DEFAULT '{}', entry_keys bytea[] NOT NULL DEFAULT '{}')
            """,
            "CREATE INDEX documents_parent ON \(s).documents (parent, name_key)",
            "CREATE INDEX documents_group ON \(s).documents (collection_id, name_key)",
            """
            CREATE TABLE \(s).entries (
                index_name text COLLATE "C" NOT NULL, key bytea NOT NULL, path text COLLATE "C" NOT NULL,
                PRIMARY KEY (index_name, key, path))
            """,
            """
            CREATE TABLE \(s).changes (
                sequence bigint PRIMARY KEY, update_time bigint NOT NULL, records integer NOT NULL,
                paths text[] NOT NULL, bodies bytea[] NOT NULL, create_times bigint[] NOT NULL)
            """,
        ] {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    /// The rows of the documents at `paths` in the table `documents` of `schema`, in chunks of `chunkSize` in the
    /// order of `paths`, each chunk in path order (as the bulk importer commits them).
    func rows(of paths: [String], in schema: String, chunkSize: Int) async throws -> [[Row]] {
        var found: [String: Row] = [:]
        let rows = try await client.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT path, parent, collection_id, name_key, body, entry_indexes, entry_keys FROM \(schema).documents"
            ), logger: logger)
        for try await (path, parent, group, name, body, indexes, keys) in rows.decode(
            (String, String, String, ByteBuffer, ByteBuffer, [String], [ByteBuffer]).self)
        {
            found[path] = Row(
                path: path, parent: parent, collectionID: group, nameKey: Array(buffer: name),
                body: Array(buffer: body),
                entryIndexes: indexes, entryKeys: keys.map { Array(buffer: $0) })
        }
        return stride(from: 0, to: paths.count, by: chunkSize).map { start in
            paths[start..<min(paths.count, start + chunkSize)].compactMap { found[$0] }
                .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        }
    }

    /// Writes `chunks`, one transaction each (`BEGIN`, two copies, the change-log row, `COMMIT`), chunk `i` as
    /// sequence `i + 1`, encoding the next chunk while one writes.
    func write(_ chunks: [[Row]]) async throws {
        var next = chunks.first.map { chunk in Task { Encoded(chunk, sequence: 1, schema: schema) } }
        for position in chunks.indices {
            guard let encoding = next else { break }
            let encoded = await encoding.value
            next =
                position + 1 < chunks.count
                ? Task { [schema] in Encoded(chunks[position + 1], sequence: Int64(position) + 2, schema: schema) }
                : nil
            try await client.withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                // postgres-nio quotes the table name: the schema comes from `search_path`.
                try await connection.query(
                    PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \(schema)"), logger: logger)
                try await connection.copyFrom(table: "documents", columns: Self.documentColumns, logger: logger) {
                    try await $0.write(encoded.documents)
                }
                try await connection.copyFrom(
                    table: "entries", columns: ["index_name", "key", "path"], logger: logger
                ) { try await $0.write(encoded.entries) }
                try await connection.query(encoded.changeLogRow, logger: logger)
                try await connection.query("COMMIT", logger: logger)
            }
        }
    }

    func stop() {
        runner.cancel()
    }

    private static let documentColumns = [
        "path", "parent", "collection_id", "name_key", "body", "data", "entry_indexes", "entry_keys", "version",
        "create_time", "update_time",
    ]

    /// A chunk encoded for the wire.
    private struct Encoded: Sendable {
        var documents: ByteBuffer
        var entries: ByteBuffer
        var changeLogRow: PostgresQuery

        init(_ chunk: [Row], sequence: Int64, schema: String) {
            var documents = CopyRows(capacity: chunk.count * 400)
            var entries = CopyRows(capacity: chunk.count * 150)
            for row in chunk {
                documents.text(row.path)
                documents.text(row.parent)
                documents.text(row.collectionID)
                documents.bytea(row.nameKey)
                documents.bytea(row.body)
                documents.null()
                documents.textArray(row.entryIndexes)
                documents.byteaArray(row.entryKeys)
                documents.integer(sequence)
                documents.integer(sequence)
                documents.integer(sequence)
                documents.endRow()
                for (index, key) in zip(row.entryIndexes, row.entryKeys) {
                    entries.text(index)
                    entries.bytea(key)
                    entries.text(row.path)
                    entries.endRow()
                }
            }
            self.documents = ByteBuffer(bytes: documents.bytes)
            self.entries = ByteBuffer(bytes: entries.bytes)
            let bodies = chunk.map { ByteBuffer(bytes: $0.body) }
            changeLogRow = """
                INSERT INTO \(unescaped: schema).changes (sequence, update_time, records, paths, bodies, create_times)
                VALUES (\(sequence), \(sequence), \(chunk.count), \(chunk.map(\.path))::text[], \(bodies)::bytea[],
                    \(Array(repeating: sequence, count: chunk.count))::bigint[])
                """
        }
    }
}

/// Rows in `COPY`'s text format: tab-separated columns, a row per line; backslash, tab, newline and carriage return
/// escaped; `bytea` as hex, arrays as literals with every element quoted.
private struct CopyRows {
    private(set) var bytes: [UInt8] = []
    private var started = false

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func endRow() {
        bytes.append(10)
        started = false
    }

    mutating func text(_ value: String) {
        separate()
        escape(value, quoted: false)
    }

    mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: #"\N"#.utf8)
    }

    mutating func bytea(_ value: [UInt8]) {
        separate()
        bytes.append(contentsOf: #"\\x"#.utf8)
        hex(value)
    }

    mutating func textArray(_ values: [String]) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            escape(value, quoted: true)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func byteaArray(_ values: [[UInt8]]) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #""\\\\x"#.utf8)
            hex(value)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func separate() {
        if started { bytes.append(9) }
        started = true
    }

    /// COPY's escapes; `quoted`: an array element's too (`"` and `\` behind a backslash, itself escaped for COPY).
    private mutating func escape(_ value: String, quoted: Bool) {
        for byte in value.utf8 {
            switch byte {
            case 92: bytes.append(contentsOf: quoted ? #"\\\\"#.utf8 : #"\\"#.utf8)
            case 34 where quoted: bytes.append(contentsOf: #"\\""#.utf8)
            case 9: bytes.append(contentsOf: #"\t"#.utf8)
            case 10: bytes.append(contentsOf: #"\n"#.utf8)
            case 13: bytes.append(contentsOf: #"\r"#.utf8)
            default: bytes.append(byte)
            }
        }
    }

    private mutating func hex(_ value: [UInt8]) {
        for byte in value {
            let high = byte >> 4
            let low = byte & 15
            bytes.append(high < 10 ? 48 + high : 87 + high)  // 0-9, a-f
            bytes.append(low < 10 ? 48 + low : 87 + low)
        }
    }
}
