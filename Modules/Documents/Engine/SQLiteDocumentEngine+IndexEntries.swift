import Foundation
import GRDB
import Synchronization

extension SQLiteDocumentEngine {
    /// Adds index entries to existing documents without changing their version or the change log. Atomic.
    ///
    /// The new entries go into runs of their own, of at most `IndexTuning/backfillChunk` operations each (the first
    /// together with the pending operations), so memory stays bounded however many entries come.
    @_spi(Engine) public func addIndexEntries(_ additions: [IndexAddition]) async throws {
        _ = try await addIndexEntries(additions, chunkOperations: tuning.backfillChunk)
    }

    /// ``addIndexEntries(_:)`` in runs of at most `chunkOperations` operations; returns how many runs it wrote (tests).
    func addIndexEntries(_ additions: [IndexAddition], chunkOperations: Int) async throws -> Int {
        let work = try additions.map { ($0.path, try EnginePath.split(document: $0.path), $0.entries) }
        let indexIDs = indexIDs
        let writerPending = writerPending
        let tuning = tuning
        // A backfill touches every document of the collection and flushes: GRDB's queue, not the calling thread.
        let chunks = try await write(inline: false) { db in
            let ownKeys = try OwnIndexKeys(db)
            var buffer = IndexOpBuffer()
            var ids = IndexIDs.Local(indexIDs)
            var chunks = 0
            func writeChunk() throws {
                if chunks == 0 {
                    try Self.flushAll(db, extra: buffer, writerPending: writerPending, tuning: tuning)
                } else {
                    // Nothing is pending since the first chunk: a run of the buffer alone.
                    let through = try SQLiteIndexRuns.flushedThrough(db)
                    try SQLiteIndexRuns.flush(
                        db, pendingAfter: through, through: through, extra: buffer, tuning: tuning)
                }
                chunks += 1
                buffer = IndexOpBuffer()
            }
            for (path, parts, added) in work {
                guard let (changeID, old) = try ownKeys.read(path: path, parts: parts) else { continue }
                let merged = OwnEntryList.canonical(old + (try ids.entries(added, db)))
                let (_, new) = OwnEntryList.difference(old: old, new: merged)
                if new.isEmpty { continue }
                let pathSlot = buffer.addPath(path.utf8)
                for entry in new { buffer.add(index: entry.index, key: entry.key, path: pathSlot, isPut: true) }
                try ownKeys.write(merged, changeID: changeID)
                if buffer.count >= max(1, chunkOperations) || buffer.arena.count >= IndexOpBuffer.chunkBytes {
                    try writeChunk()
                }
            }
            if chunks == 0 || !buffer.isEmpty { try writeChunk() }
            return chunks
        }
        maintenance.kick()
        return chunks
    }

    /// Removes every entry of `index`, and the index from each document's own entry list. Atomic.
    ///
    /// The index's entries stream past (a block per run in memory); each document is rewritten as its first entry
    /// comes by.
    @_spi(Engine) public func removeIndex(_ index: String) async throws {
        let indexIDs = indexIDs
        let writerPending = writerPending
        let pending = pendingIndex
        let tuning = tuning
        try await write(inline: false) { db in
            // The name keeps its id (ids are never reused); without one, the index has no entries.
            guard let id = try indexIDs.id(of: index, db) else { return }
            try Self.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
            let ownKeys = try OwnIndexKeys(db)
            var lastPath: [UInt8] = []
            try SQLiteIndexRuns.forEachEntry(db, index: id, IndexScan(index: index), pending: pending) { _, bytes in
                // A document met again (another key of it) has lost the index already.
                if bytes.elementsEqual(lastPath) { return true }
                lastPath = [UInt8](bytes)
                let path = String(decoding: bytes, as: UTF8.self)
                guard let parts = try? EnginePath.split(document: path),
                    let (changeID, old) = try ownKeys.read(path: path, parts: parts)
                else { return true }
                let kept = old.filter { $0.index != id }
                if kept.count != old.count { try ownKeys.write(kept, changeID: changeID) }
                return true
            }
            // A background merge that read these runs before now must not bring the entries back.
            try SQLiteIndexRuns.bumpGeneration(db)
            let delete = try SQLiteStatement(db, "DELETE FROM index_blocks WHERE run = ?1 AND idx = ?2")
            for run in try RunInfo.all(db) {
                delete.bind(run.id, at: 1)
                delete.bind(id, at: 2)
                try delete.run()
            }
        }
    }

    /// Flushes every pending operation, plus `extra`, into a run; inside a write transaction.
    static func flushAll(
        _ db: Database, extra: IndexOpBuffer?, writerPending: WriterPending, tuning: IndexTuning
    ) throws {
        let flushed = try SQLiteIndexRuns.flushedThrough(db)
        let through = max(flushed, try SQLiteIndexRuns.maxChangeID(db))
        try SQLiteIndexRuns.flush(db, pendingAfter: flushed, through: through, extra: extra, tuning: tuning)
        writerPending.set(flushedThrough: through, count: 0)
    }
}
