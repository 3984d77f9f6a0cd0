import Foundation
import GRDB
import Synchronization

extension SQLiteDocumentEngine {
    /// Index names and their integer ids (table `index_names`).
    ///
    /// Ids are never deleted or reused, so an id once read from the committed database stays valid for the file's
    /// life and is cached, whichever process created it. An id this process creates inside a write transaction is
    /// not cached (the transaction could still roll back, and another process then take the id); a later lookup
    /// reads and caches it.
    final class IndexIDs: Sendable {
        /// By the names' UTF-8 bytes, as the `index_names` table compares them: two names that differ only by their
        /// Unicode normalization (collections `é` and `e\u{301}`) are two indexes.
        private let cache = Mutex(ExactKeyDictionary<Int64>())

        /// Every cached name and id.
        func snapshot() -> ExactKeyDictionary<Int64> { cache.withLock { $0 } }

        /// Caches `ids` (names created by a committed transaction) and returns every cached name and id.
        func remember(_ ids: some Sequence<(String, Int64)>) -> ExactKeyDictionary<Int64> {
            cache.withLock { cache in
                for (name, id) in ids where cache[name] == nil { cache[name] = id }
                return cache
            }
        }

        /// The id of `name`, or `nil` when no entry of that index was ever stored.
        func id(of name: String, _ db: Database) throws -> Int64? {
            if let id = cache.withLock({ $0[name] }) { return id }
            let select = try SQLiteStatement(db, "SELECT id FROM index_names WHERE name = ?1")
            defer { select.reset() }
            select.bind(name, at: 1)
            guard try select.step() else { return nil }
            let id = select.int64(0)
            cache.withLock { $0[name] = id }
            return id
        }

        /// Ids looked up (or created) within one write transaction: from a snapshot of the shared cache taken once
        /// (no lock per name, and no copy: the snapshot shares the cache's storage), the few others from the
        /// database.
        struct Local {
            let shared: IndexIDs
            private let known: ExactKeyDictionary<Int64>
            private var others = ExactKeyDictionary<Int64>()
            init(_ shared: IndexIDs) {
                self.shared = shared
                known = shared.snapshot()
            }

            mutating func id(_ name: String, _ db: Database) throws -> Int64 {
                if let id = known[name] ?? others[name] { return id }
                let id = try shared.idCreating(name, db)
                others[name] = id
                return id
            }

            /// `entries` with their indexes as ids, canonical.
            mutating func entries(_ entries: [IndexEntry], _ db: Database) throws -> [OwnEntry] {
                var result: [OwnEntry] = []
                result.reserveCapacity(entries.count)
                // Through this transaction's own table (no lock): most names repeat from document to document.
                for i in entries.indices {
                    result.append(OwnEntry(index: try id(entries[i].index, db), key: entries[i].key))
                }
                return OwnEntryList.canonical(result)
            }
        }

        /// The id of `name`, created if needed; only inside a write transaction, once per name and transaction.
        func idCreating(_ name: String, _ db: Database) throws -> Int64 {
            if let id = try id(of: name, db) { return id }
            let insert = try SQLiteStatement(db, "INSERT INTO index_names (name) VALUES (?1)")
            insert.bind(name, at: 1)
            try insert.run()
            return db.lastInsertedRowID
        }
    }
}
