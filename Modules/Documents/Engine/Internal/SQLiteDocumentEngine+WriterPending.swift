import Foundation
import GRDB
import Synchronization

extension SQLiteDocumentEngine {
    /// This process's count of the pending index operations after a flush point, so a commit knows when to flush
    /// without counting the change log each time. Recounted when the flush point moved (another process flushed).
    /// Other processes' pending operations are not seen until then, so with several writing processes a flush can
    /// come later than the threshold; it still comes.
    final class WriterPending: Sendable {
        private struct State {
            var flushedThrough: Int64 = -1
            var count = 0
        }
        private let state = Mutex(State())

        func count(_ db: Database, flushedThrough: Int64) throws -> Int {
            if let count = state.withLock({ $0.flushedThrough == flushedThrough ? $0.count : nil }) { return count }
            let total = try SQLiteIndexRuns.pendingOperationCount(db, after: flushedThrough)
            set(flushedThrough: flushedThrough, count: total)
            return total
        }

        func set(flushedThrough: Int64, count: Int) {
            state.withLock { $0 = State(flushedThrough: flushedThrough, count: count) }
        }
    }
}
