import GRDB

extension SQLiteDocumentEngine {
    /// The schema, one migration per version. Never edit a shipped migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE documents (
                        parent TEXT NOT NULL,
                        doc_id TEXT NOT NULL,
                        collection_id TEXT NOT NULL,
                        version INTEGER NOT NULL,
                        create_time INTEGER NOT NULL,
                        update_time INTEGER NOT NULL,
                        change_id INTEGER NOT NULL,
                        index_keys BLOB NOT NULL,
                        name_key BLOB NOT NULL,
                        PRIMARY KEY (parent, doc_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX documents_group ON documents (collection_id, name_key);
                    CREATE TABLE index_entries (
                        idx TEXT NOT NULL,
                        entry_key BLOB NOT NULL,
                        path TEXT NOT NULL,
                        PRIMARY KEY (idx, entry_key, path)
                    ) WITHOUT ROWID;
                    CREATE TABLE changes (
                        id INTEGER PRIMARY KEY,
                        path TEXT NOT NULL,
                        version INTEGER,
                        create_time INTEGER,
                        update_time INTEGER,
                        body BLOB
                    );
                    CREATE TABLE metadata (
                        meta_key TEXT NOT NULL PRIMARY KEY,
                        value BLOB NOT NULL
                    ) WITHOUT ROWID;
                    """
            )
        }
        // v2: index names are stored once, in `index_names`; entries carry the name's integer id instead of the
        // name's text, which makes every entry (and the b-tree) smaller. Ids are never deleted or reused, so a
        // process may cache them.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE index_names (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE
                    );
                    INSERT INTO index_names (name) SELECT DISTINCT idx FROM index_entries ORDER BY idx;
                    CREATE TABLE index_entries_v2 (
                        idx INTEGER NOT NULL,
                        entry_key BLOB NOT NULL,
                        path TEXT NOT NULL,
                        PRIMARY KEY (idx, entry_key, path)
                    ) WITHOUT ROWID;
                    INSERT INTO index_entries_v2 (idx, entry_key, path)
                        SELECT n.id, e.entry_key, e.path FROM index_entries e JOIN index_names n ON n.name = e.idx
                        ORDER BY n.id, e.entry_key, e.path;
                    DROP TABLE index_entries;
                    ALTER TABLE index_entries_v2 RENAME TO index_entries;
                    """
            )
        }
        // v3: index entries move from one row each (`index_entries`) to a log-structured merge tree: immutable
        // sorted runs of blocks (`index_runs`, `index_blocks`) plus pending operations in the change rows
        // (`changes.index_ops`) after `index_state.flushed_through`. Existing entries become the first run. Each
        // document's own entry list moves from its `documents` row to its change row (`changes.index_keys`). The
        // collection-group index keeps nested documents only: a top-level collection is listed by its primary key.
        migrator.registerMigration("v3") { db in
            try db.execute(
                sql: """
                    CREATE TABLE index_runs (
                        id INTEGER PRIMARY KEY,
                        seq INTEGER NOT NULL,
                        tier INTEGER NOT NULL,
                        entries INTEGER NOT NULL
                    );
                    CREATE TABLE index_blocks (
                        run INTEGER NOT NULL,
                        idx INTEGER NOT NULL,
                        last_key BLOB NOT NULL,
                        last_path TEXT NOT NULL,
                        data BLOB NOT NULL,
                        PRIMARY KEY (run, idx, last_key, last_path)
                    ) WITHOUT ROWID;
                    CREATE TABLE index_state (
                        id INTEGER PRIMARY KEY CHECK (id = 0),
                        flushed_through INTEGER NOT NULL,
                        generation INTEGER NOT NULL
                    );
                    INSERT INTO index_state (id, flushed_through, generation) VALUES (0, 0, 0);
                    ALTER TABLE changes ADD COLUMN index_ops BLOB;
                    ALTER TABLE changes ADD COLUMN index_keys BLOB;
                    DROP INDEX documents_group;
                    CREATE INDEX documents_group ON documents (collection_id, name_key) WHERE instr(parent, '/') > 0;
                    """
            )
            // Each document's own entry list moves to the change row its document row points at, its index names
            // replaced by their ids.
            var ids = IndexIDs.Local(IndexIDs())
            let own = try SQLiteStatement(db, "SELECT parent || '/' || doc_id, change_id, index_keys FROM documents")
            let move = try SQLiteStatement(db, "UPDATE changes SET index_keys = ?2 WHERE id = ?1")
            while try own.step() {
                let path = own.text(0)
                let entries = try own.withBytes(2) { try IndexEntryList.decode($0, path: path) }
                move.bind(own.int64(1), at: 1)
                move.bind(OwnEntryList.encode(try ids.entries(entries, db)), at: 2)
                try move.run()
            }
            own.reset()
            try db.execute(sql: "ALTER TABLE documents DROP COLUMN index_keys")
            let through = try SQLiteIndexRuns.maxChangeID(db)
            var writer = try RunWriter(db, seq: through, tuning: .standard)
            let select = try SQLiteStatement(
                db, "SELECT idx, entry_key, path FROM index_entries ORDER BY idx, entry_key, path")
            while try select.step() {
                let index = select.int64(0)
                let key = select.bytes(1)
                let path = select.bytes(2)
                try key.withUnsafeBytes { key in
                    try path.withUnsafeBytes { path in
                        try writer.append(index: index, key: key, path: path, isPut: true)
                    }
                }
            }
            select.reset()
            try writer.finish(db)
            try SQLiteIndexRuns.setFlushedThrough(db, through)
            try db.execute(sql: "DROP TABLE index_entries")
        }
        // v4: keys of automatic (single-field and array-contains) index entries are bounded to
        // `IndexKey.maximumLength` bytes (`IndexKey.bounded`); earlier files hold longer keys whole, which a query for
        // a long value no longer finds. The tables stay as they are; those keys are rewritten.
        migrator.registerMigration("v4") { db in try boundAutomaticIndexKeys(db) }
        // v5: a new document's change row stores its index operations as `IndexOpCodec.allOwnEntriesPut` (its own
        // entries, each a put) instead of a second copy of its entries. Nothing to convert; the version makes engines
        // that would misread those rows refuse the file.
        migrator.registerMigration("v5") { _ in }
        // v6: a partial run (tier -1) of a background flush or merge is owned by its engine's random token (`owner`)
        // under a lease (`lease_until`, Unix milliseconds) that the engine renews while it writes the run; an open
        // deletes only partial runs whose lease expired. Process ids, used before, repeat across pid namespaces.
        // Partial runs of earlier engines get a lease from now: if their writer still runs, it has that long to end.
        migrator.registerMigration("v6") { db in
            try db.execute(
                sql: """
                    ALTER TABLE index_runs ADD COLUMN owner INTEGER;
                    ALTER TABLE index_runs ADD COLUMN lease_until INTEGER;
                    """)
            try db.execute(
                sql: "UPDATE index_runs SET owner = 0, entries = 0, lease_until = ? WHERE tier < 0",
                arguments: [
                    SQLiteIndexMaintenance.nowMilliseconds() + SQLiteIndexMaintenance.leaseMilliseconds
                ])
        }
        return migrator
    }

    /// Rewrites the automatic index entries whose keys are longer than ``IndexKey/maximumLength`` with
    /// ``IndexKey/bounded(_:)`` keys (migration v4), inside the migration's transaction.
    ///
    /// Per document (in pages, primary-key order), the rewritten entries replace the old ones in its own entry list
    /// and, in the index, a removal of each old entry and a put of its bounded one go into runs of at most about
    /// `operationsPerRun` operations. The first run also takes every pending operation, as pending operations take
    /// precedence over runs (a pending put of an old key would outlive its removal). A file without long keys is only
    /// read.
    ///
    /// A key of exactly `maximumLength + 1` bytes is either a whole key or one bounded already (files written by
    /// schema v3 once automatic keys were bounded): it is kept when bounding the document's body produces it.
    static func boundAutomaticIndexKeys(_ db: Database, operationsPerRun: Int = 100_000) throws {
        let names = try indexNamesByID(db)
        if names.isEmpty { return }
        let page = try SQLiteStatement(
            db,
            """
            SELECT d.parent, d.doc_id, d.collection_id, d.change_id, c.index_keys FROM documents d \
            CROSS JOIN changes c ON c.id = d.change_id WHERE (d.parent, d.doc_id) > (?1, ?2) \
            ORDER BY d.parent, d.doc_id LIMIT 1000
            """)
        let selectBody = try SQLiteStatement(db, "SELECT body FROM changes WHERE id = ?1")
        let ownKeys = try OwnIndexKeys(db)
        var buffer = IndexOpBuffer()
        var runs = 0
        /// Writes `buffer` as a run; the first one with everything pending (after it, nothing is).
        func writeRun(_ buffer: IndexOpBuffer) throws {
            try flushAll(db, extra: buffer, writerPending: WriterPending(), tuning: .standard)
        }

        var last = (parent: "", id: "")
        var rows: [KeyBoundingRow] = []
        while true {
            try readRows(page, after: last, into: &rows)
            guard let end = rows.last else { break }
            last = (end.parent, end.id)
            for row in rows {
                if let bounded = try boundLongKeys(of: row, names: names, selectBody: selectBody, into: &buffer) {
                    // Two long keys may bound to one (a hash collision): the list stays canonical.
                    try ownKeys.write(OwnEntryList.canonical(bounded), changeID: row.changeID)
                }
                if buffer.count > operationsPerRun {
                    try writeRun(buffer)
                    buffer = IndexOpBuffer()
                    runs += 1
                }
            }
        }
        if !buffer.isEmpty {
            try writeRun(buffer)
            runs += 1
        }
        // Like dropping an index, this changes the index outside a merge: a background merge planned before it (by a
        // process that opened the file earlier) is discarded instead of swapped in.
        if runs > 0 { try SQLiteIndexRuns.bumpGeneration(db) }
    }

    /// One document as ``boundAutomaticIndexKeys(_:operationsPerRun:)`` reads it.
    private struct KeyBoundingRow {
        var parent: String
        var id: String
        var collectionID: String
        var changeID: Int64
        var entries: [OwnEntry]
    }

    /// Every index name by its id.
    private static func indexNamesByID(_ db: Database) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        let selectNames = try SQLiteStatement(db, "SELECT id, name FROM index_names")
        while try selectNames.step() { names[selectNames.int64(0)] = selectNames.text(1) }
        selectNames.reset()
        return names
    }

    /// Replaces `rows` with the next page of documents after `last` (in primary-key order), read by `page`.
    private static func readRows(
        _ page: SQLiteStatement, after last: (parent: String, id: String), into rows: inout [KeyBoundingRow]
    ) throws {
        rows.removeAll(keepingCapacity: true)
        page.bind(last.parent, at: 1)
        page.bind(last.id, at: 2)
        while try page.step() {
            let (parent, id) = (page.text(0), page.text(1))
            let entries =
                page.isNull(4)
                ? [] : try page.withBytes(4) { try OwnEntryList.decode($0, path: parent + "/" + id) }
            rows.append(
                KeyBoundingRow(
                    parent: parent, id: id, collectionID: page.text(2), changeID: page.int64(3), entries: entries))
        }
        page.reset()
    }

    /// Bounds the row's automatic entries longer than ``IndexKey/maximumLength``: adds the removal of each old entry
    /// and the put of its bounded one to `buffer`, and returns the row's entries with the bounded keys (`nil` when
    /// none changed).
    private static func boundLongKeys(
        of row: KeyBoundingRow, names: [Int64: String], selectBody: SQLiteStatement, into buffer: inout IndexOpBuffer
    ) throws -> [OwnEntry]? {
        var bounded = row.entries
        var pathSlot: (start: Int, count: Int)?
        var known: Set<IndexEntry>?
        for (i, entry) in row.entries.enumerated() where entry.key.count > IndexKey.maximumLength {
            guard let name = names[entry.index], IndexPolicy.isAutomaticIndex(name, collectionPath: row.parent)
            else { continue }
            let path = row.parent + "/" + row.id
            if entry.key.count == IndexKey.maximumLength + 1 {
                if known == nil { known = try boundedEntries(row, path: path, selectBody: selectBody) }
                if known?.contains(IndexEntry(index: name, key: entry.key)) == true { continue }
            }
            bounded[i].key = IndexKey.bounded(entry.key)
            let slot = pathSlot ?? buffer.addPath(path.utf8)
            pathSlot = slot
            buffer.add(index: entry.index, key: entry.key, path: slot, isPut: false)
            buffer.add(index: entry.index, key: bounded[i].key, path: slot, isPut: true)
        }
        return pathSlot == nil ? nil : bounded
    }

    /// The document's bounded automatic entries of `maximumLength + 1` bytes, from its body (read by `selectBody`);
    /// none when the body is not a document's (engine-level files).
    private static func boundedEntries(
        _ row: KeyBoundingRow, path: String, selectBody: SQLiteStatement
    ) throws -> Set<IndexEntry> {
        selectBody.bind(row.changeID, at: 1)
        defer { selectBody.reset() }
        guard try selectBody.step(), !selectBody.isNull(0),
            let data = try? selectBody.withBytes(0, { try ValueCodec.decode($0) })
        else { return [] }
        let entries = IndexPolicy.entries(
            for: data, path: path, collectionPath: row.parent, collectionID: row.collectionID, declared: [])
        return Set(entries.lazy.filter { $0.key.count == IndexKey.maximumLength + 1 })
    }

    /// Refuses a SQLite file that belongs to another application or to a newer Suite.
    static func checkOwnership(_ pool: DatabasePool, path: String) throws {
        try pool.read { db in
            let tables = try String.fetchAll(
                db,
                sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            if tables.isEmpty { return }
            // `grdb_migrations` alone: another connection is creating this file (GRDB makes that table before the
            // first migration's transaction), and the migrator waits for it.
            let beingCreated = tables == ["grdb_migrations"]
            guard beingCreated || (tables.contains("grdb_migrations") && tables.contains("documents")) else {
                throw DocumentsError(
                    .corrupted,
                    "'\(path)' is a SQLite database but not a Suite documents database",
                    hint: "point the documents engine at a new file, or at a file Suite created"
                )
            }
            if try migrator.hasBeenSuperseded(db) {
                throw DocumentsError(
                    .unsupported,
                    "'\(path)' was written by a newer version of Suite",
                    hint: "upgrade Suite to open it"
                )
            }
        }
    }
}
