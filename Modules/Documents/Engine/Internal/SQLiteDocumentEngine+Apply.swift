import Foundation
import GRDB

extension SQLiteDocumentEngine {
    /// The body of a commit, inside the write transaction. Throwing rolls everything back.
    ///
    /// Each distinct path's index changes (its entries before the commit against its entries after) go into its
    /// change row as pending operations, or — when the pending operations reach the flush threshold, as a bulk
    /// commit's do at once — straight into a new run with everything pending.
    static func apply(
        _ mutations: [DocumentMutation],
        work: CommitWork,
        commitTime: Int64,
        indexIDs: IndexIDs,
        writerPending: WriterPending,
        tuning: IndexTuning,
        db: Database
    ) throws -> (CommitResult, maintain: Bool) {
        var commit = try CommitApplication(
            mutations, work: work, sequence: try lastSequence(db) + 1, commitTime: commitTime, indexIDs: indexIDs,
            db: db)
        try commit.writeDocuments()
        let operations = try commit.indexOperations(tuning: tuning)
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let pendingCount = operations.count == 0 ? 0 : try writerPending.count(db, flushedThrough: flushed)
        // A bulk commit writes its operations (with everything pending) as a run at once, not into its change rows;
        // otherwise the background flush takes them at the threshold, and a commit only far beyond it.
        let flushNow =
            operations.count > 0
            && (pendingCount + operations.count >= tuning.maximumPending
                || operations.count >= tuning.directRunThreshold)
        let wantsFlush = !flushNow && operations.count > 0 && pendingCount + operations.count >= tuning.flushThreshold
        let flushBuffer = try commit.insertChangeRows(operations, flushNow: flushNow)
        if flushNow {
            let through = commit.sequence << 20 | Int64(work.changes.last.count - 1)
            try SQLiteIndexRuns.flush(
                db, pendingAfter: flushed, through: through, extra: operations.presorted ?? flushBuffer,
                encodedExtra: operations.presorted == nil ? nil : work.encodedPuts, tuning: tuning,
                compactingPast: tuning.maximumRunsBeforeInlineMerge)
            writerPending.set(flushedThrough: through, count: 0)
        } else if operations.count > 0 {
            writerPending.set(flushedThrough: flushed, count: pendingCount + operations.count)
        }
        return (CommitResult(sequence: commit.sequence, documents: commit.results), flushNow || wantsFlush)
    }

    /// A commit's index operations: per change-log slot, or the puts sorted ahead (`CommitWork.puts`).
    private struct IndexOperations {
        var slots: [(removed: [OwnEntry], added: [OwnEntry])] = []
        var count = 0
        var presorted: IndexOpBuffer?
    }

    /// The state of one ``apply(_:work:commitTime:indexIDs:writerPending:tuning:db:)``, whose steps are its methods.
    private struct CommitApplication {
        typealias Existing = (version: Int64, createTime: Int64, entries: [OwnEntry])

        let mutations: [DocumentMutation]
        let work: CommitWork
        let sequence: Int64
        let commitTime: Int64
        let db: Database
        // Statements are taken from the connection's cache when first needed: finding one hashes its SQL, and a
        // commit of new documents never looks one up, updates or deletes.
        var selectDocument = LazyStatement(
            """
            SELECT d.version, d.create_time, c.index_keys FROM documents d CROSS JOIN changes c \
            ON c.id = d.change_id WHERE d.parent = ?1 AND d.doc_id = ?2
            """)
        let insertDocument: SQLiteStatement
        var updateDocument = LazyStatement(
            "UPDATE documents SET version = ?3, update_time = ?4, change_id = ?5 WHERE parent = ?1 AND doc_id = ?2")
        var deleteDocument = LazyStatement("DELETE FROM documents WHERE parent = ?1 AND doc_id = ?2")

        var results: [StoredDocument?] = []
        // Per change-log slot: the path's entries before the commit (from its first mutation) and after; and, once a
        // mutation wrote the path, its state (its change row is only inserted at the end of the commit).
        var before: [[OwnEntry]?]
        var after: [[OwnEntry]]
        var written: [(createTime: Int64, entries: [OwnEntry])??]
        /// Slots whose final entries are still only in `work.ownBlobs` (decoded when needed).
        var afterIsEncoded: [Bool]
        var ids: IndexIDs.Local

        init(
            _ mutations: [DocumentMutation], work: CommitWork, sequence: Int64, commitTime: Int64, indexIDs: IndexIDs,
            db: Database
        ) throws {
            self.mutations = mutations
            self.work = work
            self.sequence = sequence
            self.commitTime = commitTime
            self.db = db
            // A put that may create the document tries the insert first: for a new document (an import, an `add`)
            // that is one b-tree descent instead of a failed lookup and then an insert. Only a key conflict is skipped.
            insertDocument = try SQLiteStatement(
                db,
                """
                INSERT INTO documents (parent, doc_id, collection_id, version, create_time, update_time, change_id, \
                name_key) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7) ON CONFLICT (parent, doc_id) DO NOTHING
                """
            )
            results.reserveCapacity(mutations.count)
            let slots = work.changes.last.count
            before = Array(repeating: nil, count: slots)
            after = Array(repeating: [], count: slots)
            written = Array(repeating: nil, count: slots)
            afterIsEncoded = Array(repeating: false, count: slots)
            ids = IndexIDs.Local(indexIDs)
        }

        /// Step 1: checks each mutation's precondition and writes its `documents` row.
        mutating func writeDocuments() throws {
            let slots = work.changes.slot
            for (index, (mutation, prep)) in zip(mutations, work.prepared).enumerated() {
                let path = mutation.path
                let slot = slots[index]
                let (existing, inserted) = try current(mutation, prep, slot: slot)
                try mutation.precondition.check(path: path, currentVersion: existing?.version)
                if before[slot] == nil { before[slot] = existing?.entries ?? [] }

                switch mutation.kind {
                case .put(let body, _):
                    try put(body, index: index, slot: slot, prep, path: path, existing: existing, inserted: inserted)
                case .delete:
                    if existing != nil {
                        let delete = try deleteDocument.get(db)
                        delete.bind(prep.parts.parent, at: 1)
                        delete.bind(prep.parts.id, at: 2)
                        try delete.run()
                    }
                    after[slot] = []
                    written[slot] = .some(nil)
                    results.append(nil)
                case .check:
                    // `run` takes the checks out of the commit before it gets here.
                    throw DocumentsError(.storage, "internal error: a check mutation of '\(path)' reached apply")
                }
            }
        }

        /// The document's state before `mutation` (this commit's earlier write of it, or its row), and whether
        /// `mutation` already inserted its row.
        private mutating func current(
            _ mutation: DocumentMutation, _ prep: Prepared, slot: Int
        ) throws -> (Existing?, inserted: Bool) {
            if let state = written[slot] {
                return (state.map { (sequence, $0.createTime, $0.entries) }, false)
            }
            if case .put = mutation.kind, mutation.precondition.allowsAbsence,
                try insert(prep, path: mutation.path, changeID: sequence << 20 | Int64(slot))
            {
                return (nil, true)
            }
            var existing: Existing?
            let select = try selectDocument.get(db)
            select.bind(prep.parts.parent, at: 1)
            select.bind(prep.parts.id, at: 2)
            if try select.step() {
                existing = (
                    select.int64(0), select.int64(1),
                    select.isNull(2) ? [] : try select.withBytes(2) { try OwnEntryList.decode($0, path: mutation.path) }
                )
            }
            select.reset()
            return (existing, false)
        }

        private func insert(_ prep: Prepared, path: String, changeID: Int64) throws -> Bool {
            insertDocument.bind(prep.parts.parent, at: 1)
            insertDocument.bind(prep.parts.id, at: 2)
            insertDocument.bind(prep.parts.collectionID, at: 3)
            insertDocument.bind(sequence, at: 4)
            insertDocument.bind(commitTime, at: 5)
            insertDocument.bind(changeID, at: 6)
            // Only nested documents are in the collection-group index (see `documents(inCollectionGroup:)`).
            insertDocument.bind(prep.parts.parent.utf8.contains(0x2F) ? EnginePath.nameKey(path) : [], at: 7)
            try insertDocument.run()
            return db.changesCount == 1
        }

        private mutating func put(
            _ body: [UInt8], index: Int, slot: Int, _ prep: Prepared, path: String, existing: Existing?, inserted: Bool
        ) throws {
            // The body is stored once, in this commit's change-log row for the path.
            let changeID = sequence << 20 | Int64(slot)
            if existing != nil {
                let update = try updateDocument.get(db)
                update.bind(prep.parts.parent, at: 1)
                update.bind(prep.parts.id, at: 2)
                update.bind(sequence, at: 3)
                update.bind(commitTime, at: 4)
                update.bind(changeID, at: 5)
                try update.run()
            } else if !inserted {
                guard try insert(prep, path: path, changeID: changeID) else {
                    throw DocumentsError(.storage, "document '\(path)' appeared during its own commit")
                }
            }
            // A prepared final put carries its list encoded; it is decoded below only if the commit needs it.
            let blob = work.ownBlobs.isEmpty ? nil : work.ownBlobs[index]
            let entries = blob == nil ? try ids.entries(prep.entries, db) : []
            if blob != nil { afterIsEncoded[slot] = true }
            after[slot] = entries
            let createTime = existing?.createTime ?? commitTime
            written[slot] = .some((createTime, entries))
            results.append(
                StoredDocument(
                    path: path,
                    body: body,
                    version: sequence,
                    createTime: createTime,
                    updateTime: commitTime
                )
            )
        }

        /// Step 2: the index operations per slot; or, when no document existed and there are enough for a run, the
        /// puts sorted ahead of the transaction.
        mutating func indexOperations(tuning: IndexTuning) throws -> IndexOperations {
            var operations = IndexOperations()
            if let puts = work.puts, puts.count >= tuning.directRunThreshold,
                before.allSatisfy({ $0?.isEmpty ?? true })
            {
                operations.presorted = puts
                operations.count = puts.count
                return operations
            }
            let changes = work.changes
            for slot in changes.last.indices where afterIsEncoded[slot] {
                let last = changes.last[slot]
                after[slot] =
                    try work.ownBlobs[last].map { blob in
                        try blob.withUnsafeBytes { try OwnEntryList.decode($0, path: mutations[last].path) }
                    } ?? []
            }
            operations.slots.reserveCapacity(changes.last.count)
            for slot in changes.last.indices {
                let difference = OwnEntryList.difference(old: before[slot] ?? [], new: after[slot])
                operations.count += difference.removed.count + difference.added.count
                operations.slots.append(difference)
            }
            return operations
        }

        /// Step 3: inserts a change row per distinct path, with its index operations as pending ones, or — when
        /// `flushNow` — into the returned buffer.
        func insertChangeRows(_ operations: IndexOperations, flushNow: Bool) throws -> IndexOpBuffer {
            var flushBuffer = IndexOpBuffer()
            let insertChange = try SQLiteStatement(
                db,
                """
                INSERT INTO changes (id, path, version, create_time, update_time, body, index_ops, index_keys) \
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """
            )
            var opsBlob: [UInt8] = []
            for (n, i) in work.changes.last.enumerated() {
                let path = mutations[i].path
                insertChange.bind(sequence << 20 | Int64(n), at: 1)
                insertChange.bind(path, at: 2)
                bindDocument(insertChange, results[i], mutation: i, slot: n)
                if operations.presorted != nil {
                    insertChange.bindNull(at: 7)
                    try insertChange.run()
                    continue
                }
                let (removed, added) = operations.slots[n]
                if removed.isEmpty && added.isEmpty {
                    insertChange.bindNull(at: 7)
                } else if flushNow {
                    insertChange.bindNull(at: 7)
                    let pathSlot = flushBuffer.addPath(path.utf8)
                    for entry in removed {
                        flushBuffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: false)
                    }
                    for entry in added {
                        flushBuffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: true)
                    }
                } else if removed.isEmpty, added.count == after[n].count {
                    // A new document: its operations are its own entries, stored once (in `index_keys`).
                    insertChange.bind(IndexOpCodec.allOwnEntriesPut, at: 7)
                } else {
                    Self.encodeChangeOps(removed: removed, added: added, into: &opsBlob)
                    insertChange.bind(opsBlob, at: 7)
                }
                try insertChange.run()
            }
            return flushBuffer
        }

        /// Binds a change row's document columns (3–6) and its own-entry list (8).
        private func bindDocument(
            _ insertChange: SQLiteStatement, _ document: StoredDocument?, mutation i: Int, slot n: Int
        ) {
            if let document {
                insertChange.bind(document.version, at: 3)
                insertChange.bind(document.createTime, at: 4)
                insertChange.bind(document.updateTime, at: 5)
                insertChange.bind(document.body, at: 6)
                if !work.ownBlobs.isEmpty, let blob = work.ownBlobs[i] {
                    insertChange.bind(blob, at: 8)
                } else {
                    insertChange.bind(OwnEntryList.encode(after[n]), at: 8)
                }
            } else {
                insertChange.bindNull(at: 3)
                insertChange.bindNull(at: 4)
                // A delete's row keeps the commit's time too: retention ages the log by it.
                insertChange.bind(commitTime, at: 5)
                insertChange.bindNull(at: 6)
                insertChange.bindNull(at: 8)
            }
        }

        /// A change row's `index_ops`: the count, then each removal and put (``IndexOpCodec/decodeChangeOps``).
        private static func encodeChangeOps(removed: [OwnEntry], added: [OwnEntry], into opsBlob: inout [UInt8]) {
            opsBlob.removeAll(keepingCapacity: true)
            IndexOpCodec.appendVarint(UInt64(removed.count + added.count), to: &opsBlob)
            for (list, isPut) in [(removed, false), (added, true)] {
                for entry in list {
                    opsBlob.append(isPut ? 1 : 0)
                    IndexOpCodec.appendVarint(UInt64(entry.index), to: &opsBlob)
                    IndexOpCodec.appendVarint(UInt64(entry.key.count), to: &opsBlob)
                    opsBlob.append(contentsOf: entry.key)
                }
            }
        }
    }
}
