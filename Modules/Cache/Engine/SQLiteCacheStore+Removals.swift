import GRDB

extension SQLiteCacheStore {
    @discardableResult
    public func removeEntry(forKey key: String) async throws -> Bool {
        try await remove("remove the cache entry '\(key)'", where: "key = ?", [key], inline: true) > 0
    }

    /// Removes the keys in the range [prefix, prefix with its last character incremented): an index range scan.
    @discardableResult
    public func removeEntries(withPrefix prefix: String) async throws -> Int {
        guard !prefix.isEmpty else { return try await removeAll() }
        let action = "remove the cache entries under '\(prefix)'"
        if let upper = Self.upperBound(ofPrefix: prefix) {
            return try await remove(action, where: "key >= ? AND key < ?", [prefix, upper])
        }
        return try await remove(action, where: "key >= ?", [prefix])
    }

    @discardableResult
    public func removeEntries(taggedWith tag: String) async throws -> Int {
        try await remove(
            "remove the cache entries tagged '\(tag)'", where: "key IN (SELECT key FROM tags WHERE tag = ?)", [tag])
    }

    @discardableResult
    public func removeExpired(now: Int64) async throws -> Int {
        try await remove(
            "remove expired cache entries", where: "id IN (SELECT id FROM recency WHERE expiresAt <= ?)", [now])
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        try await remove("remove every cache entry", where: "1", [])
    }

    /// Deletes the rows matching `condition`, then their value files; how many rows.
    /// (`inline`: see ``writeDatabase(_:inline:_:)``; for a removal by key.)
    private func remove(
        _ action: String, where condition: String, _ arguments: StatementArguments, inline: Bool = false
    ) async throws -> Int {
        try checkOpen()
        let inline = inline && accesses.pendingCount <= Self.inlineAccessLimit
        let (count, files) = try await writeDatabase(action, inline: inline) { db in
            try self.applyAccesses(db)
            return try self.deleteEntries(db, where: condition, arguments)
        }
        self.files.removeValues(files)
        return count
    }

    /// Deletes the entries matching `condition` (their `recency` and `tags` rows cascade) and takes them off the
    /// totals; how many, and the value files no row names any more.
    func deleteEntries(
        _ db: Database, where condition: String, _ arguments: StatementArguments
    ) throws -> (count: Int, files: [String]) {
        // Read before deleting: a RETURNING clause cannot see `recency`, whose rows the deletion cascades to.
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT file, cost FROM entries JOIN recency USING (id) WHERE \(condition)"),
            arguments: arguments)
        var count = 0
        var bytes = 0
        var files: [String] = []
        while let row = try rows.next() {
            count += 1
            bytes += row[1] as Int
            if let file: String = row[0] { files.append(file) }
        }
        guard count > 0 else { return (0, []) }
        try db.cachedStatement(sql: "DELETE FROM entries WHERE \(condition)").execute(arguments: arguments)
        totals.add(entries: -count, bytes: -bytes)
        return (count, files)
    }

    /// The smallest string greater than every string starting with `prefix` (by UTF-8 bytes, SQLite's `BINARY`
    /// order): `prefix` with its last character incremented, or `nil` when every character is the largest one.
    static func upperBound(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var result = ""
                result.unicodeScalars.append(contentsOf: scalars)
                return result
            }
        }
        return nil
    }
}
