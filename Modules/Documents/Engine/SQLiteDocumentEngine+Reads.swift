import Foundation
import GRDB

extension SQLiteDocumentEngine {
    /// The documents at `paths`, in order; `nil` where none exists.
    @_spi(Engine) public func documents(at paths: [String]) async throws -> [StoredDocument?] {
        let parts = try paths.map { try EnginePath.split(document: $0) }
        if paths.count == 1 {
            // The hot path of a GET: the engine's own connections, no GRDB pool (``SQLitePointReader``).
            try checkOpen()
            let part = parts[0]
            do {
                let row = try pointReader.withConnection { connection throws(SQLitePointReader.PointReadFailure) in
                    try connection.read(parent: part.parent, id: part.id)
                }
                return [
                    row.map {
                        StoredDocument(path: paths[0], body: $0.3, version: $0.0, createTime: $0.1, updateTime: $0.2)
                    }
                ]
            } catch {
                throw DocumentsError(
                    .storage, "cannot read \(paths[0]) from \(path): \(error.message)",
                    hint: "check the file and its permissions; `suite docs stats` opens it too")
            }
        }
        func fetch(_ db: Database) throws -> [StoredDocument?] {
            let select = try SQLiteStatement(db, SQLitePointReader.select)
            var result: [StoredDocument?] = []
            result.reserveCapacity(paths.count)
            for (path, part) in zip(paths, parts) {
                select.bind(part.parent, at: 1)
                select.bind(part.id, at: 2)
                defer { select.reset() }
                if try select.step() {
                    result.append(
                        StoredDocument(
                            path: path,
                            body: select.bytes(3),
                            version: select.int64(0),
                            createTime: select.int64(1),
                            updateTime: select.int64(2)
                        )
                    )
                } else {
                    result.append(nil)
                }
            }
            return result
        }
        // Several documents are read in one snapshot.
        return try read(fetch)
    }

    /// Entries of one index within bounds, in `(key, path)` order or reversed: the pending operations and every run
    /// merged, in one read snapshot (through the engine's `LogStructuredIndex`).
    @_spi(Engine) public func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        try await index.scan(scan)
    }

    /// The engine's index behind the ``SecondaryIndex`` seam.
    var index: LogStructuredIndex { LogStructuredIndex(engine: self) }

    /// The collection ids under `parentPath` (the root when nil) holding a document at any depth: a skip scan of the
    /// `(parent, doc_id)` key.
    @_spi(Engine) public func collectionIDs(under parentPath: String?) async throws -> [String]? {
        try await EnginePath.collectionIDs(under: parentPath) { lower, inclusive, upper in
            let sql =
                "SELECT parent FROM documents WHERE parent \(inclusive ? ">=" : ">") ?1"
                + (upper == nil ? "" : " AND parent < ?2") + " ORDER BY parent LIMIT 1"
            return try read { db in
                let select = try SQLiteStatement(db, sql)
                defer { select.reset() }
                select.bind(lower, at: 1)
                if let upper { select.bind(upper, at: 2) }
                return try select.step() ? select.text(0) : nil
            }
        }
    }

    /// Documents directly in `collectionPath`, in path order, after `afterPath`, at most `limit`.
    @_spi(Engine) public func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        _ = try EnginePath.collectionID(ofCollection: collectionPath)
        if let limit, limit <= 0 { return [] }
        let start = EnginePath.collectionStart(parent: collectionPath, after: afterPath)
        var afterID: String?
        switch start {
        case .none: return []
        case .all: afterID = nil
        case .afterID(let id): afterID = id
        }
        let sql = Self.childrenPageSQL(after: afterID != nil)
        return try read { [afterID] db in
            let select = try SQLiteStatement(db, sql)
            defer { select.reset() }
            select.bind(collectionPath, at: 1)
            if let afterID { select.bind(afterID, at: 2) }
            select.bind(Int64(limit ?? -1), at: 3)
            var result: [StoredDocument] = []
            let prefix = collectionPath + "/"
            while try select.step() {
                result.append(
                    StoredDocument(
                        path: prefix + select.text(0),
                        body: select.bytes(4),
                        version: select.int64(1),
                        createTime: select.int64(2),
                        updateTime: select.int64(3)
                    )
                )
            }
            return result
        }
    }

    /// Documents of every collection named `collectionID`, in path order, after `afterPath`, at most `limit`.
    @_spi(Engine) public func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        try EnginePath.checkCollectionID(collectionID)
        if let limit, limit <= 0 { return [] }
        // Two sources in document-name order, merged: the nested documents of the group through the partial index
        // `documents_group`, and the top-level collection of that name through the primary key (its documents'
        // IDs order them by name among themselves).
        let afterKey = afterPath.map { EnginePath.nameKey($0) }
        let nestedSQL =
            "SELECT d.parent, d.doc_id, d.version, d.create_time, d.update_time, c.body, d.name_key FROM documents d "
            + "INDEXED BY documents_group CROSS JOIN changes c ON c.id = d.change_id "
            + "WHERE d.collection_id = ?1 AND instr(d.parent, '/') > 0"
            + (afterKey == nil ? "" : " AND d.name_key > ?2") + " ORDER BY d.name_key LIMIT ?3"
        var topAfterID: String?
        var topLevel = true
        switch EnginePath.collectionStart(parent: collectionID, after: afterPath) {
        case .none: topLevel = false
        case .all: topAfterID = nil
        case .afterID(let id): topAfterID = id
        }
        let topSQL = Self.childrenPageSQL(after: topAfterID != nil)
        return try read { [topAfterID, topLevel] db in
            let nested = try Self.nestedGroupPage(db, nestedSQL, collectionID, afterKey: afterKey, limit: limit)
            let top = try topLevel ? Self.topLevelPage(db, topSQL, collectionID, afterID: topAfterID, limit: limit) : []
            return Self.mergedByName(nested, top, limit: limit)
        }
    }

    /// The nested documents of the collection group, in name order, after `afterKey`, at most `limit`, each with its
    /// name key.
    private static func nestedGroupPage(
        _ db: Database, _ sql: String, _ collectionID: String, afterKey: [UInt8]?, limit: Int?
    ) throws -> [(key: [UInt8], document: StoredDocument)] {
        var nested: [(key: [UInt8], document: StoredDocument)] = []
        let select = try SQLiteStatement(db, sql)
        select.bind(collectionID, at: 1)
        if let afterKey { select.bind(afterKey, at: 2) }
        select.bind(Int64(limit ?? -1), at: 3)
        while try select.step() {
            let document = StoredDocument(
                path: select.text(0) + "/" + select.text(1), body: select.bytes(5), version: select.int64(2),
                createTime: select.int64(3), updateTime: select.int64(4))
            nested.append((select.bytes(6), document))
        }
        select.reset()
        return nested
    }

    /// The documents of the top-level collection `collectionID`, in ID order, after `afterID`, at most `limit`, each
    /// with its name key.
    private static func topLevelPage(
        _ db: Database, _ sql: String, _ collectionID: String, afterID: String?, limit: Int?
    ) throws -> [(key: [UInt8], document: StoredDocument)] {
        var top: [(key: [UInt8], document: StoredDocument)] = []
        let select = try SQLiteStatement(db, sql)
        select.bind(collectionID, at: 1)
        if let afterID { select.bind(afterID, at: 2) }
        select.bind(Int64(limit ?? -1), at: 3)
        while try select.step() {
            let path = collectionID + "/" + select.text(0)
            let document = StoredDocument(
                path: path, body: select.bytes(4), version: select.int64(1), createTime: select.int64(2),
                updateTime: select.int64(3))
            top.append((EnginePath.nameKey(path), document))
        }
        select.reset()
        return top
    }

    /// The documents of two lists in name-key order, merged, at most `limit`.
    private static func mergedByName(
        _ nested: [(key: [UInt8], document: StoredDocument)], _ top: [(key: [UInt8], document: StoredDocument)],
        limit: Int?
    ) -> [StoredDocument] {
        var result: [StoredDocument] = []
        var i = 0
        var j = 0
        let wanted = limit ?? Int.max
        while result.count < wanted, i < nested.count || j < top.count {
            if j >= top.count || (i < nested.count && compareBytes(nested[i].key, top[j].key) < 0) {
                result.append(nested[i].document)
                i += 1
            } else {
                result.append(top[j].document)
                j += 1
            }
        }
        return result
    }

    /// Change-log records after `sequence`, in order, at most `limit`.
    @_spi(Engine) public func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        if limit <= 0 { return [] }
        let maximumSequence = Int64.max >> 20
        if sequence >= maximumSequence { return [] }
        let firstKey = (max(sequence, 0) + 1) << 20
        return try read { db in
            try Self.checkHorizon(after: sequence, db)
            let select = try SQLiteStatement(
                db,
                "SELECT id, path, version, create_time, update_time, body FROM changes WHERE id >= ?1 ORDER BY id LIMIT ?2"
            )
            defer { select.reset() }
            select.bind(firstKey, at: 1)
            select.bind(Int64(limit), at: 2)
            var result: [ChangeRecord] = []
            while try select.step() {
                let path = select.text(1)
                let document: StoredDocument? =
                    select.isNull(2)
                    ? nil
                    : StoredDocument(
                        path: path,
                        body: select.bytes(5),
                        version: select.int64(2),
                        createTime: select.int64(3),
                        updateTime: select.int64(4)
                    )
                result.append(ChangeRecord(sequence: select.int64(0) >> 20, path: path, document: document))
            }
            return result
        }
    }

    /// The sequence of the last commit, 0 when nothing was committed.
    @_spi(Engine) public func lastSequence() async throws -> Int64 {
        try read { db in try Self.lastSequence(db) }
    }

    /// A page of the documents whose parent is `?1` (after id `?2` when `after`), in id order, at most `?3`: columns
    /// doc_id, version, create_time, update_time, body.
    static func childrenPageSQL(after: Bool) -> String {
        "SELECT d.doc_id, d.version, d.create_time, d.update_time, c.body FROM documents d "
            + "CROSS JOIN changes c ON c.id = d.change_id WHERE d.parent = ?1"
            + (after ? " AND d.doc_id > ?2" : "") + " ORDER BY d.doc_id LIMIT ?3"
    }

    static func lastSequence(_ db: Database) throws -> Int64 {
        let select = try SQLiteStatement(db, "SELECT max(id) FROM changes")
        defer { select.reset() }
        guard try select.step(), !select.isNull(0) else { return 0 }
        return select.int64(0) >> 20
    }
}
