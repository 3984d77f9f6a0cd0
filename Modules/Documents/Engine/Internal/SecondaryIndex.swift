import Foundation
import GRDB

/// One change to a secondary index: put or remove the entry `(index, key, path)`.
struct IndexOperation: Sendable, Hashable {
    var index: String
    var key: [UInt8]
    var path: String
    var isPut: Bool
}

/// The role of an engine's secondary index, as the engine uses it: take entry operations, scan one index in
/// `(key, path)` order, and (for an index that defers work) flush and merge what it deferred. Implementations:
/// ``PlainTableIndex`` (one ordinary SQLite table, the reference model) and ``LogStructuredIndex`` (the SQLite
/// engine's pending operations and runs, through which the engine scans). The differential test drives both through
/// this protocol, and the engine's commits against the plain table.
protocol SecondaryIndex: Sendable {
    /// Applies the operations in order, atomically (a later operation on an entry wins).
    func apply(_ operations: [IndexOperation]) async throws
    /// The scan's entries: the contract of ``DocumentEngine/scan(_:)``.
    func scan(_ scan: IndexScan) async throws -> [IndexHit]
    /// Writes deferred operations into the index's sorted form; the default does nothing.
    func flush() async throws
    /// Merges the index's sorted parts as far as it can; the default does nothing.
    func merge() async throws
}

extension SecondaryIndex {
    /// Nothing is deferred.
    func flush() async throws {}
    /// Nothing to merge.
    func merge() async throws {}
}

/// A ``SecondaryIndex`` in one ordinary SQLite table of `(idx, key, path)` rows, its primary key: every operation an
/// insert or a delete of a row, every scan a range of the b-tree. Simple enough to be obviously right, so the
/// differential test holds the log-structured index to it.
final class PlainTableIndex: SecondaryIndex {
    private let queue: DatabaseQueue

    /// An index in a private in-memory database.
    init() throws {
        queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE entries (idx TEXT NOT NULL, key BLOB NOT NULL, path BLOB NOT NULL, \
                    PRIMARY KEY (idx, key, path)) WITHOUT ROWID
                    """)
        }
    }

    func apply(_ operations: [IndexOperation]) async throws {
        try await queue.write { db in
            for op in operations {
                if op.isPut {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO entries (idx, key, path) VALUES (?, ?, ?)",
                        arguments: [op.index, Data(op.key), Data(op.path.utf8)])
                } else {
                    try db.execute(
                        sql: "DELETE FROM entries WHERE idx = ? AND key = ? AND path = ?",
                        arguments: [op.index, Data(op.key), Data(op.path.utf8)])
                }
            }
        }
    }

    func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        if let limit = scan.limit, limit <= 0 { return [] }
        var sql = "SELECT key, path FROM entries WHERE idx = ?"
        var arguments: StatementArguments = [scan.index]
        if let lower = scan.lower {
            sql += lower.inclusive ? " AND key >= ?" : " AND key > ?"
            arguments += [Data(lower.key)]
        }
        if let upper = scan.upper {
            sql += upper.inclusive ? " AND key <= ?" : " AND key < ?"
            arguments += [Data(upper.key)]
        }
        sql += scan.reverse ? " ORDER BY key DESC, path DESC" : " ORDER BY key, path"
        if let limit = scan.limit { sql += " LIMIT \(limit)" }
        return try await queue.read { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                let key: Data = row[0]
                let path: Data = row[1]
                return IndexHit(key: [UInt8](key), path: String(decoding: path, as: UTF8.self))
            }
        }
    }
}
