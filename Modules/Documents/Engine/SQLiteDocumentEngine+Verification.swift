import GRDB

extension SQLiteDocumentEngine {
    /// Compares each selected index with the documents' own entries (`changes.index_keys`) in one read snapshot; see
    /// ``DocumentEngine/verifyIndexes(_:maximumReported:progress:)``. Memory is bounded by
    /// `IndexTuning/verificationChunk` entries: past it the documents are checked in partitions (by a hash of the
    /// path), each index streamed once per partition.
    @_spi(Engine) public func verifyIndexes(
        _ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?
    ) async throws -> IndexVerification {
        try checkOpen()
        let pending = pendingIndex
        let chunk = max(1, tuning.verificationChunk)
        do {
            return try await pool.read { db in
                try SQLiteIndexCheck.verify(
                    db, selection: selection, maximumReported: max(0, maximumReported), chunk: chunk,
                    pending: pending, progress: progress)
            }
        } catch {
            throw Self.mapError(error, path: path)
        }
    }

    /// Rebuilds each selected index from the documents' own entries in one write transaction; see
    /// ``DocumentEngine/rebuildIndexes(_:progress:)``. Every index: the runs and pending operations are replaced.
    /// Some: the pending operations are flushed first and the indexes' blocks removed from every run. The entries
    /// are written in runs of at most `IndexTuning/backfillChunk`, merged into one (streaming, a block per run).
    @_spi(Engine) public func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws
        -> IndexRebuild
    {
        let writerPending = writerPending
        let tuning = tuning
        let result = try await write(inline: false) { db in
            try SQLiteIndexCheck.rebuild(
                db, selection: selection, writerPending: writerPending, tuning: tuning, progress: progress)
        }
        maintenance.kick()
        return result
    }
}

/// Verification and rebuilding of the SQLite engine's index from the documents' own entries.
enum SQLiteIndexCheck {
    /// Index ids and names (`index_names`) the selection takes.
    static func indexNames(_ db: Database, _ selection: IndexSelection) throws -> [Int64: String] {
        let select = try SQLiteStatement(db, "SELECT id, name FROM index_names")
        defer { select.reset() }
        var names: [Int64: String] = [:]
        while try select.step() {
            let name = select.text(1)
            if selection.contains(name) { names[select.int64(0)] = name }
        }
        return names
    }

    /// Calls `body` with each document's path and own entries, in `(parent, id)` order.
    static func forEachDocument(_ db: Database, _ body: (String, [OwnEntry]) throws -> Void) throws {
        let select = try SQLiteStatement(
            db,
            """
            SELECT d.parent, d.doc_id, c.index_keys FROM documents d CROSS JOIN changes c ON c.id = d.change_id \
            ORDER BY d.parent, d.doc_id
            """)
        defer { select.reset() }
        while try select.step() {
            let path = select.text(0) + "/" + select.text(1)
            let entries = select.isNull(2) ? [] : try select.withBytes(2) { try OwnEntryList.decode($0, path: path) }
            try body(path, entries)
        }
    }

    /// The number of entries the documents hold in the indexes `names`.
    static func ownEntryCount(_ db: Database, _ names: [Int64: String]) throws -> Int {
        var total = 0
        try forEachDocument(db) { _, entries in
            for entry in entries where names[entry.index] != nil { total += 1 }
        }
        return total
    }

    struct Row: Hashable {
        var index: Int64
        var key: [UInt8]
        var path: String
    }

    static func verify(
        _ db: Database, selection: IndexSelection, maximumReported: Int, chunk: Int, pending: PendingIndexCache,
        progress: IndexProgressHandler?
    ) throws -> IndexVerification {
        let names = try indexNames(db, selection)
        let ids = names.keys.sorted()
        let total = try ownEntryCount(db, names)
        let partitions = max(1, (total + chunk - 1) / chunk)
        var differences: [IndexDifference] = []
        var count = 0
        var seen = Set<Int64>()
        func note(_ kind: IndexDifference.Kind, _ row: Row) {
            count += 1
            if differences.count < maximumReported {
                differences.append(
                    IndexDifference(kind: kind, index: names[row.index] ?? "", key: row.key, path: row.path))
            }
        }
        var done = 0
        for partition in 0..<partitions {
            var expected = Set<Row>()
            try forEachDocument(db) { path, entries in
                if partitions > 1, pathPartition(path.utf8, of: partitions) != partition { return }
                for entry in entries where names[entry.index] != nil {
                    expected.insert(Row(index: entry.index, key: entry.key, path: path))
                    seen.insert(entry.index)
                }
            }
            done += expected.count
            for id in ids {
                try SQLiteIndexRuns.forEachEntry(db, index: id, IndexScan(index: names[id] ?? ""), pending: pending) {
                    key, path in
                    if partitions > 1, pathPartition(path, of: partitions) != partition { return true }
                    seen.insert(id)
                    let row = Row(index: id, key: [UInt8](key), path: String(decoding: path, as: UTF8.self))
                    if expected.remove(row) == nil { note(.unexpected, row) }
                    return true
                }
            }
            for row in expected.sorted(by: { ($0.index, $0.path) < ($1.index, $1.path) }) { note(.missing, row) }
            progress?(done, total)
        }
        return IndexVerification(indexes: seen.count, entries: total, differenceCount: count, differences: differences)
    }

    static func rebuild(
        _ db: Database, selection: IndexSelection, writerPending: SQLiteDocumentEngine.WriterPending,
        tuning: IndexTuning, progress: IndexProgressHandler?
    ) throws -> IndexRebuild {
        let names = try indexNames(db, selection)
        if names.isEmpty { return IndexRebuild(indexes: 0, entries: 0) }
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let through = max(flushed, try SQLiteIndexRuns.maxChangeID(db))
        try removeEntries(
            db, of: names, selection: selection, through: through, writerPending: writerPending, tuning: tuning)

        let total = try ownEntryCount(db, names)
        var buffer = IndexOpBuffer()
        var written = 0
        var runs = Set<Int64>()
        var rebuilt = Set<Int64>()
        func writeChunk() throws {
            buffer.sortAndCollapse()
            var writer = try RunWriter(db, seq: through, tuning: tuning)
            try buffer.forEach { index, key, path, isPut in
                try writer.append(index: index, key: key, path: path, isPut: isPut)
            }
            try writer.finish(db)
            runs.insert(writer.run)
            buffer = IndexOpBuffer()
            progress?(written, total)
        }
        try forEachDocument(db) { path, entries in
            var slot: (start: Int, count: Int)?
            for entry in entries where names[entry.index] != nil {
                let pathSlot = slot ?? buffer.addPath(path.utf8)
                slot = pathSlot
                buffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: true)
                rebuilt.insert(entry.index)
                written += 1
            }
            if buffer.count >= max(1, tuning.backfillChunk) || buffer.arena.count >= IndexOpBuffer.chunkBytes {
                try writeChunk()
            }
        }
        if !buffer.isEmpty { try writeChunk() }
        // The chunks' runs (the newest, consecutive) become one; without older runs nothing else is left.
        let chunkRuns = try RunInfo.all(db).filter { runs.contains($0.id) }
        if chunkRuns.count > 1 {
            try SQLiteIndexRuns.merge(db, runs: chunkRuns, includesOldest: selection.isAll, tuning: tuning)
        }
        progress?(written, total)
        return IndexRebuild(indexes: rebuilt.count, entries: written)
    }

    /// Removes the entries the rebuild writes again: with every index selected, every run and the pending operations
    /// (marked flushed through `through`); otherwise, once the pending operations are flushed, the selected indexes'
    /// blocks.
    private static func removeEntries(
        _ db: Database, of names: [Int64: String], selection: IndexSelection, through: Int64,
        writerPending: SQLiteDocumentEngine.WriterPending, tuning: IndexTuning
    ) throws {
        if selection.isAll {
            // Every entry comes from the documents: the pending operations and every run go.
            let deleteBlocks = try SQLiteStatement(db, "DELETE FROM index_blocks WHERE run = ?1")
            let deleteRun = try SQLiteStatement(db, "DELETE FROM index_runs WHERE id = ?1")
            for run in try RunInfo.all(db) {
                deleteBlocks.bind(run.id, at: 1)
                try deleteBlocks.run()
                deleteRun.bind(run.id, at: 1)
                try deleteRun.run()
            }
            try SQLiteIndexRuns.setFlushedThrough(db, through)
        } else {
            try SQLiteDocumentEngine.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
            let delete = try SQLiteStatement(db, "DELETE FROM index_blocks WHERE run = ?1 AND idx = ?2")
            for run in try RunInfo.all(db) {
                for id in names.keys {
                    delete.bind(run.id, at: 1)
                    delete.bind(id, at: 2)
                    try delete.run()
                }
            }
        }
        // A background flush or merge that read the old runs must not put them back.
        try SQLiteIndexRuns.bumpGeneration(db)
        writerPending.set(flushedThrough: through, count: 0)
    }
}
