/// The order of keys in ``CacheStore/summaries(after:limit:)``: by their UTF-8 bytes, as SQLite's `BINARY` collation
/// compares text, so every built-in store pages the same way.
enum CacheKeyOrder {
    /// Whether `a` sorts before `b`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

extension CacheKeyOrder {
    /// A key sorting before `prefix` and before every key that starts with it, to list a prefix's keys from with
    /// ``CacheStore/summaries(after:limit:)``; `nil` for the empty prefix. It is `prefix` with its last character
    /// decremented and U+10FFFF (the largest) appended: only keys continuing exactly that sort between it and `prefix`.
    static func key(before prefix: String) -> String? {
        var scalars = prefix.unicodeScalars
        guard let last = scalars.popLast() else { return nil }
        // A last U+0000: `prefix` without it sorts right before `prefix`, with nothing in between.
        guard last.value > 0 else { return String(scalars) }
        let previous = last.value == 0xE000 ? 0xD7FF : last.value - 1
        if let scalar = Unicode.Scalar(previous) { scalars.append(scalar) }
        scalars.append("\u{10FFFF}")
        return String(scalars)
    }
}
