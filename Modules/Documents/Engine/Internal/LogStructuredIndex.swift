import Foundation
import GRDB

/// The SQLite engine's own index behind the ``SecondaryIndex`` seam: the pending operations of the change log and the
/// sorted runs of `index_runs`, as one view of an engine (it holds no state of its own). The engine answers
/// ``SQLiteDocumentEngine/scan(_:)`` and its explicit flushes and merges through it; commits record their operations
/// in their change rows (pending) and ``apply(_:)`` writes operations straight into a run, after everything pending.
///
/// `apply` changes the index only: the documents' own entries (what a later commit of the same path removes, what
/// ``SQLiteDocumentEngine/verifyIndexes()`` compares) stay as they were, so it is for driving the index on its own
/// (the differential test), not for an engine whose documents are also written.
struct LogStructuredIndex: SecondaryIndex {
    let engine: SQLiteDocumentEngine

    func apply(_ operations: [IndexOperation]) async throws {
        guard !operations.isEmpty else { return }
        try await engine.write(inline: false) {
            [ids = engine.indexIDs, writerPending = engine.writerPending, tuning = engine.tuning] db in
            var local = SQLiteDocumentEngine.IndexIDs.Local(ids)
            var buffer = IndexOpBuffer()
            for operation in operations {
                let path = buffer.addPath(operation.path.utf8)
                buffer.add(
                    index: try local.id(operation.index, db), key: operation.key, path: path, isPut: operation.isPut)
            }
            // `extra` is added after the pending operations, so it wins over them; within it, the last operation on an
            // entry wins (`IndexOpBuffer.sortAndCollapse`).
            try SQLiteDocumentEngine.flushAll(db, extra: buffer, writerPending: writerPending, tuning: tuning)
        }
    }

    func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        if let limit = scan.limit, limit <= 0 { return [] }
        let pending = engine.pendingIndex
        return try engine.read { [ids = engine.indexIDs] db in
            guard let id = try ids.id(of: scan.index, db) else { return [] }
            return try SQLiteIndexRuns.scan(db, index: id, scan, pending: pending)
        }
    }

    /// Writes every pending operation into a run (and does the merges that run count then forces).
    func flush() async throws {
        try await engine.write(inline: false) {
            [writerPending = engine.writerPending, tuning = engine.tuning] db in
            try SQLiteDocumentEngine.flushAll(db, extra: nil, writerPending: writerPending, tuning: tuning)
        }
    }

    /// The background merges due, then every merge the size tiers still call for, in the writer.
    func merge() async throws {
        await engine.waitForBackgroundWork()
        try await engine.write(inline: false) { [tuning = engine.tuning] db in
            try SQLiteIndexRuns.compact(db, tuning: tuning)
        }
    }
}
