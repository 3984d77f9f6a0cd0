/// The order of keys in ``CacheStore/summaries(after:limit:)``: by their UTF-8 bytes, as SQLite's `BINARY` collation
/// compares text, so every built-in store pages the same way.
enum CacheKeyOrder {
    /// Whether `a` sorts before `b`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
