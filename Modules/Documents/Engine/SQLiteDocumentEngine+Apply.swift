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
        let (prepared, changes) = (work.prepared, work.changes)
        let sequence = try lastSequence(db) + 1
        let slots = changes.slot
        // Statements are taken from the connection's cache when first needed: finding one hashes its SQL, and a
        // commit of new documents never looks one up, updates or deletes.
        var selectDocument = LazyStatement(
            """
            SELECT d.version, d.create_time, c.index_keys FROM documents d CROSS JOIN changes c \
            ON c.id = d.change_id WHERE d.parent = ?1 AND d.doc_id = ?2
            """)
        // A put that may create the document tries the insert first: for a new document (an import, an `add`) that
        // is one b-tree descent instead of a failed lookup and then an insert. Only a conflict on the key is skipped.
        let insertDocument = try SQLiteStatement(
            db,
            """
            INSERT INTO documents (parent, doc_id, collection_id, version, create_time, update_time, change_id, \
            name_key) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7) ON CONFLICT (parent, doc_id) DO NOTHING
            """
        )
        func insert(_ prep: Prepared, path: String, changeID: Int64) throws -> Bool {
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
        var updateDocument = LazyStatement(
            "UPDATE documents SET version = ?3, update_time = ?4, change_id = ?5 WHERE parent = ?1 AND doc_id = ?2")
        var deleteDocument = LazyStatement("DELETE FROM documents WHERE parent = ?1 AND doc_id = ?2")

        var results: [StoredDocument?] = []
        results.reserveCapacity(mutations.count)
        // Per change-log slot: the path's entries before the commit (from its first mutation) and after; and, once a
        // mutation wrote the path, its state (its change row is only inserted at the end of the commit).
        var before: [[OwnEntry]?] = Array(repeating: nil, count: changes.last.count)
        var after: [[OwnEntry]] = Array(repeating: [], count: changes.last.count)
        var written: [(createTime: Int64, entries: [OwnEntry])??] = Array(repeating: nil, count: changes.last.count)
        // Slots whose final entries are still only in `work.ownBlobs` (decoded when needed).
        var afterIsEncoded = Array(repeating: false, count: changes.last.count)
        var ids = IndexIDs.Local(indexIDs)
        for (index, (mutation, prep)) in zip(mutations, prepared).enumerated() {
            let path = mutation.path
            let slot = slots[index]
            var existing: (version: Int64, createTime: Int64, entries: [OwnEntry])?
            var inserted = false
            if let state = written[slot] {
                existing = state.map { (sequence, $0.createTime, $0.entries) }
            } else if case .put = mutation.kind, mutation.precondition.allowsAbsence,
                try insert(prep, path: path, changeID: sequence << 20 | Int64(slot))
            {
                inserted = true
            } else {
                let select = try selectDocument.get(db)
                select.bind(prep.parts.parent, at: 1)
                select.bind(prep.parts.id, at: 2)
                if try select.step() {
                    existing = (
                        select.int64(0), select.int64(1),
                        select.isNull(2) ? [] : try select.withBytes(2) { try OwnEntryList.decode($0, path: path) }
                    )
                }
                select.reset()
            }
            try mutation.precondition.check(path: path, currentVersion: existing?.version)
            if before[slot] == nil { before[slot] = existing?.entries ?? [] }

            switch mutation.kind {
            case .put(let body, _):
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

        // Index operations per slot; or, when no document existed and there are enough for a run, the puts sorted
        // ahead of the transaction (`CommitWork.puts`).
        var slotOps: [(removed: [OwnEntry], added: [OwnEntry])] = []
        var operationCount = 0
        var presorted: IndexOpBuffer?
        if let puts = work.puts, puts.count >= tuning.directRunThreshold, before.allSatisfy({ $0?.isEmpty ?? true }) {
            presorted = puts
            operationCount = puts.count
        } else {
            for slot in changes.last.indices where afterIsEncoded[slot] {
                let last = changes.last[slot]
                after[slot] =
                    try work.ownBlobs[last].map { blob in
                        try blob.withUnsafeBytes { try OwnEntryList.decode($0, path: mutations[last].path) }
                    } ?? []
            }
            slotOps.reserveCapacity(changes.last.count)
            for slot in changes.last.indices {
                let difference = OwnEntryList.difference(old: before[slot] ?? [], new: after[slot])
                operationCount += difference.removed.count + difference.added.count
                slotOps.append(difference)
            }
        }
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let pendingCount = operationCount == 0 ? 0 : try writerPending.count(db, flushedThrough: flushed)
        // A bulk commit writes its operations (with everything pending) as a run at once instead of into its change
        // rows, which would then be read back by the flush and kept there for nothing. Otherwise the pending
        // operations are flushed in the background once they reach the threshold (`SQLiteIndexMaintenance`), and
        // here only when they have piled up far beyond it.
        let flushNow =
            operationCount > 0
            && (pendingCount + operationCount >= tuning.maximumPending
                || operationCount >= tuning.directRunThreshold)
        let wantsFlush = !flushNow && operationCount > 0 && pendingCount + operationCount >= tuning.flushThreshold
        var flushBuffer = IndexOpBuffer()

        let insertChange = try SQLiteStatement(
            db,
            """
            INSERT INTO changes (id, path, version, create_time, update_time, body, index_ops, index_keys) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """
        )
        var opsBlob: [UInt8] = []
        for (n, i) in changes.last.enumerated() {
            let path = mutations[i].path
            insertChange.bind(sequence << 20 | Int64(n), at: 1)
            insertChange.bind(path, at: 2)
            if let document = results[i] {
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
            if presorted != nil {
                insertChange.bindNull(at: 7)
                try insertChange.run()
                continue
            }
            let (removed, added) = slotOps[n]
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
                insertChange.bind(opsBlob, at: 7)
            }
            try insertChange.run()
        }
        if flushNow {
            let through = sequence << 20 | Int64(changes.last.count - 1)
            try SQLiteIndexRuns.flush(
                db, pendingAfter: flushed, through: through, extra: presorted ?? flushBuffer,
                encodedExtra: presorted == nil ? nil : work.encodedPuts, tuning: tuning,
                compactingPast: tuning.maximumRunsBeforeInlineMerge)
            writerPending.set(flushedThrough: through, count: 0)
        } else if operationCount > 0 {
            writerPending.set(flushedThrough: flushed, count: pendingCount + operationCount)
        }
        return (CommitResult(sequence: sequence, documents: results), flushNow || wantsFlush)
    }
}
