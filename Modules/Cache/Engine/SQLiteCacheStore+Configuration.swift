extension SQLiteCacheStore {
    /// The SQLite store's limits.
    ///
    /// ```swift
    /// let configuration = SQLiteCacheStore.Configuration(byteLimit: 1 << 30, countLimit: 100_000)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The most bytes (sum of ``CacheEntry/cost``) the store holds: 256 MiB by default.
        public var byteLimit: Int
        /// The most entries the store holds; `nil` (the default): no limit but ``byteLimit``.
        public var countLimit: Int?
        /// Values up to this many bytes live in the database row; larger ones are files in `<file>.values/`. 16 KiB by
        /// default (SQLite reads small blobs faster than files, files faster past a few tens of KiB).
        public var inlineLimit: Int
        /// Write-behind: how long a store may stay staged in memory before a transaction writes it (with the others
        /// staged meanwhile). `nil` (the default): every store commits before it returns. See "Write-behind" on
        /// ``SQLiteCacheStore``; at most 60 seconds.
        public var writeBehind: Duration?
        /// Write-behind: the staged bytes (sum of ``CacheEntry/cost``) at which the store that reaches them writes
        /// everything staged before it returns. 4 MiB by default.
        public var writeBehindLimit: Int

        /// Creates a configuration.
        public init(
            byteLimit: Int = 256 << 20, countLimit: Int? = nil, inlineLimit: Int = 16 << 10,
            writeBehind: Duration? = nil, writeBehindLimit: Int = 4 << 20
        ) {
            self.byteLimit = byteLimit
            self.countLimit = countLimit
            self.inlineLimit = inlineLimit
            self.writeBehind = writeBehind
            self.writeBehindLimit = writeBehindLimit
        }

        /// Throws ``CacheError`` `.invalidInput` naming the first option out of range.
        func validate() throws {
            guard byteLimit > 0 else {
                throw CacheError(
                    .invalidInput, "the SQLite cache's byteLimit must be positive, not \(byteLimit)",
                    hint: "pass SQLiteCacheStore.Configuration(byteLimit:) a number of bytes above 0")
            }
            if let countLimit, countLimit < 1 {
                throw CacheError(
                    .invalidInput, "the SQLite cache's countLimit must be at least 1, not \(countLimit)",
                    hint: "pass countLimit: nil for no count limit")
            }
            guard inlineLimit >= 0, inlineLimit <= 1 << 30 else {
                throw CacheError(
                    .invalidInput, "the SQLite cache's inlineLimit must be between 0 and 1 GiB, not \(inlineLimit)",
                    hint: "pass SQLiteCacheStore.Configuration(inlineLimit:) e.g. 16 << 10")
            }
            if let writeBehind, writeBehind <= .zero || writeBehind > .seconds(60) {
                throw CacheError(
                    .invalidInput,
                    "the SQLite cache's writeBehind must be above 0 and at most 60 s, not \(writeBehind)",
                    hint: "pass e.g. .milliseconds(100), or nil to commit every store before it returns")
            }
            guard writeBehindLimit > 0 else {
                throw CacheError(
                    .invalidInput, "the SQLite cache's writeBehindLimit must be positive, not \(writeBehindLimit)",
                    hint: "pass a number of bytes, e.g. 4 << 20")
            }
        }
    }
}
