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

        /// Creates a configuration.
        public init(byteLimit: Int = 256 << 20, countLimit: Int? = nil, inlineLimit: Int = 16 << 10) {
            self.byteLimit = byteLimit
            self.countLimit = countLimit
            self.inlineLimit = inlineLimit
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
        }
    }
}
