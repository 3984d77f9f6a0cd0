@_spi(Engine) import Documents
import Logging
import NIOCore
import PostgresNIO
import Synchronization

extension PostgresDocumentEngine: DocumentEngine {
    /// One call of `commit_v3`, or for a large commit of new documents a copy: see ``PostgresCommitPlan``,
    /// ``PostgresCopyCommit`` and ``PostgresSchema``.
    func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        if mutations.isEmpty { return CommitResult(sequence: try await lastSequence(), documents: []) }
        return try await commit(try PostgresPreparedCommit(mutations, schema: schema, json: options.json), commitTime)
    }

    /// Runs a commit: its copy (``commitByCopy(_:_:_:on:)``) or its `commit_v3` call, the commit time bound last.
    func commit(_ prepared: PostgresPreparedCommit, _ commitTime: Int64) async throws -> CommitResult {
        let plan = prepared.plan
        let (sequence, failed, failedVersion, createTimes) = try await run("committing", idempotent: false) {
            [self] connection in
            if let copy = prepared.copy {
                return try await commitByCopy(copy, prepared, commitTime, on: connection)
            }
            let answer = try await callCommitFunction(prepared, commitTime, on: connection)
            try await confirmCommitted(connection)
            return answer
        }
        if let failed {
            if failed == 0 { throw plan.sequenceFailure(actual: sequence + 1) }
            throw plan.failure(ofCheck: failed - 1, currentVersion: failedVersion)
        }
        let writes = plan.writes
        if writes.isEmpty {
            return CommitResult(sequence: sequence, documents: Array(repeating: nil, count: prepared.mutationCount))
        }
        hasCommitted.store(true, ordering: .relaxed)
        if sequence % Self.pruneInterval == 0 || writes.count >= 1_000 {
            do { try await pruneChangeLog(steps: 1) } catch { logger.debug("change-log pruning failed: \(error)") }
        }
        let times = createTimes ?? Array(repeating: commitTime, count: writes.count)
        return CommitResult(
            sequence: sequence, documents: plan.results(sequence: sequence, commitTime: commitTime, createTimes: times))
    }

    /// Calls `commit_v3` for `prepared`: its answer (sequence, failed check, that document's version, create times).
    func callCommitFunction(_ prepared: PostgresPreparedCommit, _ commitTime: Int64, on connection: PostgresConnection)
        async throws -> (Int64, Int?, Int64?, [Int64]?)
    {
        var query = try prepared.functionCall()
        query.binds.append(commitTime, context: .default)
        let rows = try await connection.query(query, logger: logger)
        var answer: (Int64, Int?, Int64?, [Int64]?)?
        for try await row in rows.decode((Int64, Int?, Int64?, [Int64]?).self) where answer == nil { answer = row }
        guard let answer else { throw DocumentsError(.storage, "commit_v3 returned no row") }
        return answer
    }

    /// Waits until PostgreSQL has committed the statement just run on `connection`. postgres-nio ends a query at its
    /// CommandComplete, but an implicit transaction commits after it, at the protocol's Sync, and an error there (an
    /// immediate shutdown, a crash, a lost connection) reaches no caller: the answer's row would acknowledge a commit
    /// that never happened. The next statement is answered only after the ReadyForQuery that follows the commit, so
    /// its answer proves the commit; its failure leaves the outcome unknown, which is reported as such.
    func confirmCommitted(_ connection: PostgresConnection) async throws {
        do {
            try await connection.query("SELECT 1", logger: logger)
        } catch {
            throw DocumentsError(
                .storage,
                "lost the connection to PostgreSQL at \(options.displayName) as a commit ended: it may or may not "
                    + "have applied (whole or not at all)",
                hint: "re-read to see which; is the server up?", underlying: error)
        }
    }

    func documents(at paths: [String]) async throws -> [StoredDocument?] {
        for path in paths { _ = try EnginePath.split(document: path) }
        if paths.contains(where: { !Self.storable($0) }) {
            // PostgreSQL's text cannot hold NUL, so no stored path does (a commit of one is refused): none is found.
            let stored = paths.filter(Self.storable)
            var found = try await documents(at: stored).makeIterator()
            return paths.map { Self.storable($0) ? found.next() ?? nil : nil }
        }
        if paths.isEmpty { return [] }
        if paths.count == 1 {
            let statement = GetDocumentStatement(path: paths[0])
            return try await run("reading a document") { [self] connection in
                var found: StoredDocument?
                for try await row in try await connection.execute(statement, logger: logger) {
                    found = Self.document(row)
                }
                return [found]
            }
        }
        let found = try await run("reading documents") { [self] connection in
            // By the path's UTF-8 bytes: canonically equivalent paths (equal Swift strings) are two documents.
            var found: [[UInt8]: StoredDocument] = [:]
            let rows = try await connection.query(
                """
                SELECT path, body, version, create_time, update_time FROM \(unescaped: schema).documents
                WHERE path = ANY(\(paths))
                """, logger: logger)
            for try await document in rows.decode((String, ByteBuffer, Int64, Int64, Int64).self) {
                found[Array(document.0.utf8)] = Self.document(document)
            }
            return found
        }
        return paths.map { found[Array($0.utf8)] }
    }

    func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        guard let query = Self.scanQuery(scan, schema: schema, withDocuments: false) else { return [] }
        return try await run("scanning index '\(scan.index)'") { [self] connection in
            var hits: [IndexHit] = []
            for try await (key, path) in try await connection.query(query, logger: logger).decode(
                (ByteBuffer, String).self)
            {
                hits.append(IndexHit(key: Self.bytes(key), path: path))
            }
            return hits
        }
    }

    /// The hits and their documents in one statement (a join), so a query costs one round trip, not two.
    func scanReadingDocuments(_ scan: IndexScan) async throws -> ScannedDocuments? {
        // A query's usual shape (its first page: lower bound inclusive, upper exclusive, a limit) is prepared.
        if let lower = scan.lower, lower.inclusive, let upper = scan.upper, !upper.inclusive, let limit = scan.limit,
            limit > 0
        {
            let range = ScanRangeStatement(
                index: scan.index, lower: Self.buffer(lower.key), upper: Self.buffer(upper.key), limit: limit)
            return try await run("scanning index '\(scan.index)'") { [self] connection in
                var scanned = ScannedDocuments(hits: [], documents: [])
                let rows =
                    scan.reverse
                    ? try await connection.execute(ScanRangeReversedStatement(range: range), logger: logger)
                    : try await connection.execute(range, logger: logger)
                for try await row in rows { Self.append(row, to: &scanned) }
                return scanned
            }
        }
        guard let query = Self.scanQuery(scan, schema: schema, withDocuments: true) else {
            return ScannedDocuments(hits: [], documents: [])
        }
        return try await run("scanning index '\(scan.index)'") { [self] connection in
            var scanned = ScannedDocuments(hits: [], documents: [])
            for try await (key, path, body, version, created, updated) in try await connection.query(
                query, logger: logger
            ).decode(ScanRangeStatement.Row.self) {
                Self.append((key, path, body, version, created, updated), to: &scanned)
            }
            return scanned
        }
    }

    private static func append(_ row: ScanRangeStatement.Row, to scanned: inout ScannedDocuments) {
        let (key, path, body, version, created, updated) = row
        scanned.hits.append(IndexHit(key: bytes(key), path: path))
        if let body, let version, let created, let updated {
            scanned.documents.append(document((path, body, version, created, updated)))
        } else {
            scanned.documents.append(nil)
        }
    }

    /// The scan's statement, or `nil` for a limit of 0 or less (nothing to read).
    private static func scanQuery(_ scan: IndexScan, schema: String, withDocuments: Bool) -> PostgresQuery? {
        let limit = scan.limit ?? Int.max
        if limit <= 0 { return nil }
        var bindings = PostgresBindings()
        bindings.append(scan.index)
        var sql =
            withDocuments
            ? """
            SELECT e.key, e.path, d.body, d.version, d.create_time, d.update_time FROM \(schema).entries e
            LEFT JOIN \(schema).documents d ON d.path = e.path WHERE e.index_name = $1
            """
            : "SELECT e.key, e.path FROM \(schema).entries e WHERE e.index_name = $1"
        if let lower = scan.lower {
            bindings.append(buffer(lower.key))
            sql += " AND e.key \(lower.inclusive ? ">=" : ">") $\(bindings.count)"
        }
        if let upper = scan.upper {
            bindings.append(buffer(upper.key))
            sql += " AND e.key \(upper.inclusive ? "<=" : "<") $\(bindings.count)"
        }
        sql += scan.reverse ? " ORDER BY e.key DESC, e.path DESC" : " ORDER BY e.key, e.path"
        if limit != Int.max {
            bindings.append(limit)
            sql += " LIMIT $\(bindings.count)"
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        _ = try EnginePath.collectionID(ofCollection: collectionPath)
        let limit = limit ?? Int.max
        if limit <= 0 || !Self.storable(collectionPath) { return [] }
        var after: [UInt8] = []
        switch EnginePath.collectionStart(parent: collectionPath, after: afterPath) {
        case .none: return []
        case .all: break
        case .afterID(let id): after = EnginePath.nameKey(collectionPath + "/" + id)
        }
        return try await list(column: "parent", value: collectionPath, after: after, limit: limit)
    }

    func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        try EnginePath.checkCollectionID(collectionID)
        let limit = limit ?? Int.max
        if limit <= 0 || !Self.storable(collectionID) { return [] }
        return try await list(
            column: "collection_id", value: collectionID, after: afterPath.map(EnginePath.nameKey) ?? [],
            limit: limit)
    }

    private func list(column: String, value: String, after: [UInt8], limit: Int) async throws -> [StoredDocument] {
        var bindings = PostgresBindings()
        bindings.append(value)
        bindings.append(Self.buffer(after))
        var sql = """
            SELECT path, body, version, create_time, update_time FROM \(schema).documents
            WHERE \(column) = $1 AND name_key > $2 ORDER BY name_key
            """
        if limit != Int.max {
            bindings.append(limit)
            sql += " LIMIT $3"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        return try await run("listing '\(value)'") { [self] connection in
            var documents: [StoredDocument] = []
            for try await row in try await connection.query(query, logger: logger).decode(
                (String, ByteBuffer, Int64, Int64, Int64).self)
            {
                documents.append(Self.document(row))
            }
            return documents
        }
    }

    /// The collection ids under `parentPath`: a skip scan of the `(parent, name_key)` index, a few seeks per id.
    func collectionIDs(under parentPath: String?) async throws -> [String]? {
        if let parentPath, !Self.storable(parentPath) {
            _ = try EnginePath.split(document: parentPath)
            return []
        }
        return try await EnginePath.collectionIDs(under: parentPath) { [self] lower, inclusive, upper in
            var bindings = PostgresBindings()
            bindings.append(lower)
            var sql = "SELECT parent FROM \(schema).documents WHERE parent \(inclusive ? ">=" : ">") $1"
            if let upper {
                bindings.append(upper)
                sql += " AND parent < $2"
            }
            let query = PostgresQuery(unsafeSQL: sql + " ORDER BY parent LIMIT 1", binds: bindings)
            return try await run("listing collections", idempotent: true) { [self] connection in
                for try await parent in try await connection.query(query, logger: logger).decode(String.self) {
                    return parent
                }
                return nil
            }
        }
    }

    func lastSequence() async throws -> Int64 {
        try await run("reading the last sequence") { [self] connection in
            let rows = try await connection.query(
                "SELECT last_sequence FROM \(unescaped: schema).state WHERE id = 1", logger: logger)
            for try await sequence in rows.decode(Int64.self) { return sequence }
            return 0
        }
    }

    func addIndexEntries(_ additions: [IndexAddition]) async throws {
        var paths: [String] = []
        var indexes: [String] = []
        var keys: [ByteBuffer] = []
        for addition in additions where Self.storable(addition.path) {
            for entry in addition.entries {
                paths.append(addition.path)
                indexes.append(entry.index)
                keys.append(Self.buffer(entry.key))
            }
        }
        if paths.isEmpty { return }
        // Under the commit lock (a commit rewriting one of these documents deletes the entries its row lists), the
        // new entries go into the index and into their documents' own lists, in one transaction.
        try await run("adding index entries", idempotent: false) { [self, paths, indexes, keys] connection in
            try await Self.inTransaction(connection, logger: logger) {
                try await connection.query(
                    "SELECT 1 FROM \(unescaped: schema).state WHERE id = 1 FOR UPDATE", logger: logger)
                try await connection.query(
                    """
                    WITH added AS (
                        INSERT INTO \(unescaped: schema).entries (index_name, key, path)
                        SELECT DISTINCT e.index_name, e.key, e.path
                        FROM unnest(\(indexes)::text[], \(keys)::bytea[], \(paths)::text[]) AS e(index_name, key, path)
                        JOIN \(unescaped: schema).documents d ON d.path = e.path
                        ON CONFLICT DO NOTHING
                        RETURNING index_name, key, path)
                    UPDATE \(unescaped: schema).documents d
                    SET entry_indexes = d.entry_indexes || a.indexes, entry_keys = d.entry_keys || a.keys
                    FROM (SELECT path, array_agg(index_name) AS indexes, array_agg(key) AS keys FROM added GROUP BY path)
                        AS a
                    WHERE d.path = a.path
                    """, logger: logger)
            }
        }
    }

    func removeIndex(_ index: String) async throws {
        try await run("removing index '\(index)'", idempotent: false) { [self] connection in
            try await Self.inTransaction(connection, logger: logger) {
                try await connection.query(
                    "SELECT 1 FROM \(unescaped: schema).state WHERE id = 1 FOR UPDATE", logger: logger)
                try await connection.query(
                    "DELETE FROM \(unescaped: schema).entries WHERE index_name = \(index)", logger: logger)
                try await connection.query(
                    """
                    UPDATE \(unescaped: schema).documents d SET (entry_indexes, entry_keys) = (
                        SELECT coalesce(array_agg(u.i ORDER BY u.o), '{}'), coalesce(array_agg(u.k ORDER BY u.o), '{}')
                        FROM unnest(d.entry_indexes, d.entry_keys) WITH ORDINALITY AS u(i, k, o) WHERE u.i <> \(index))
                    WHERE \(index) = ANY(d.entry_indexes)
                    """, logger: logger)
            }
        }
    }

    func metadata(forKey key: String) async throws -> [UInt8]? {
        try await run("reading metadata") { [self] connection in
            let rows = try await connection.query(
                "SELECT value FROM \(unescaped: schema).metadata WHERE key = \(key)", logger: logger)
            for try await value in rows.decode(ByteBuffer.self) { return Self.bytes(value) }
            return nil
        }
    }

    func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        try await run("writing metadata") { [self] connection in
            if let value {
                _ = try await connection.query(
                    """
                    INSERT INTO \(unescaped: schema).metadata (key, value) VALUES (\(key), \(Self.buffer(value)))
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, logger: logger)
            } else {
                _ = try await connection.query(
                    "DELETE FROM \(unescaped: schema).metadata WHERE key = \(key)", logger: logger)
            }
        }
    }

    /// Reads and rewrites the value in one transaction, under a transaction-scoped advisory lock on the key, so that
    /// updates from every server are serialised.
    func updateMetadata(forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?)
        async throws
    {
        let schema = schema
        let logger = logger
        try await run("updating metadata", idempotent: false) { connection in
            try await Self.inTransaction(connection, logger: logger) {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\(schema + ".metadata." + key)))", logger: logger)
                var current: [UInt8]?
                for try await value in try await connection.query(
                    "SELECT value FROM \(unescaped: schema).metadata WHERE key = \(key)", logger: logger
                ).decode(ByteBuffer.self) {
                    current = Self.bytes(value)
                }
                if let value = try transform(current) {
                    try await connection.query(
                        """
                        INSERT INTO \(unescaped: schema).metadata (key, value) VALUES (\(key), \(Self.buffer(value)))
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value
                        """, logger: logger)
                } else {
                    try await connection.query(
                        "DELETE FROM \(unescaped: schema).metadata WHERE key = \(key)", logger: logger)
                }
            }
        }
    }

    /// Prunes the change log down to retention if this engine committed (see ``pruneChangeLog(now:steps:)``), then
    /// closes the connections.
    func shutdown() async {
        if hasCommitted.load(ordering: .relaxed) {
            do { try await pruneChangeLog() } catch { logger.debug("change-log pruning failed: \(error)") }
        }
        await stop()
    }

    /// Returns when a commit after `sequence` is notified (from any server on this schema), or after `timeout`.
    func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await notifier.wait(after: sequence, timeout: timeout)
    }

    /// Whether PostgreSQL's text can hold `text` (it cannot hold NUL): a read naming a path that cannot be stored
    /// finds nothing instead of failing.
    static func storable(_ text: String) -> Bool {
        !text.utf8.contains(0)
    }

    static func document(_ row: (String, ByteBuffer, Int64, Int64, Int64)) -> StoredDocument {
        StoredDocument(path: row.0, body: bytes(row.1), version: row.2, createTime: row.3, updateTime: row.4)
    }
}
