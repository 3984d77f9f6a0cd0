/// The SQLite engine prepares bulk commits ahead of their write (its `prepareCommit` and `commit` of a
/// ``PreparedCommit``, in `SQLiteDocumentEngine+Commit.swift`).
extension SQLiteDocumentEngine: CommitPreparing {}
