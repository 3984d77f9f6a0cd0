import Foundation
import GRDB

/// Reads and rewrites the list of index entries a document keeps of its own: `changes.index_keys` of the change row
/// its `documents` row points at (since schema v3, so `documents` rows stay small).
struct OwnIndexKeys {
    let select: SQLiteStatement
    let update: SQLiteStatement

    init(_ db: Database) throws {
        select = try SQLiteStatement(
            db,
            """
            SELECT d.change_id, c.index_keys FROM documents d CROSS JOIN changes c ON c.id = d.change_id \
            WHERE d.parent = ?1 AND d.doc_id = ?2
            """)
        update = try SQLiteStatement(db, "UPDATE changes SET index_keys = ?2 WHERE id = ?1")
    }

    /// The document's change row and own entries, or `nil` when no document is at `path`.
    func read(path: String, parts: EnginePath.Parts) throws -> (changeID: Int64, entries: [OwnEntry])? {
        select.bind(parts.parent, at: 1)
        select.bind(parts.id, at: 2)
        defer { select.reset() }
        guard try select.step() else { return nil }
        let entries = select.isNull(1) ? [] : try select.withBytes(1) { try OwnEntryList.decode($0, path: path) }
        return (select.int64(0), entries)
    }

    /// Replaces the document's own entries.
    func write(_ entries: [OwnEntry], changeID: Int64) throws {
        update.bind(changeID, at: 1)
        update.bind(OwnEntryList.encode(entries), at: 2)
        try update.run()
    }
}
