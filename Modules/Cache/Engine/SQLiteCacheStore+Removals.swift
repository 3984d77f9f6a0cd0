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
        try await remove("remove expired cache entries", where: "expiresAt <= ?", [now])
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
        let files = try await writeDatabase(action, inline: inline) { db in
            try self.applyAccesses(db)
            return try String?.fetchAll(
                db.cachedStatement(sql: "DELETE FROM entries WHERE \(condition) RETURNING file"), arguments: arguments)
        }
        self.files.removeValues(files.compactMap { $0 })
        return files.count
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
