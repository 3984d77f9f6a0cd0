public import Foundation

/// `Data` and `URL` forms of the cache's calls, for app code that holds Foundation's types (as Nuke's and URLCache's
/// APIs take them).
///
/// ```swift
/// let cache = DataCache(store: try SQLiteCacheStore(path: cachesFolder.appending(path: "cache.sqlite").path))
/// let avatar = URL(string: "https://cdn.example.com/u/42.png")!
/// try await cache.set(pngData, for: avatar, lifetime: 3600)
/// let cached: Data? = await cache.data(for: avatar)
/// ```
///
/// A `URL` key is the URL's absolute string, exactly (no normalisation: ``CachedHTTPClient`` normalises the URLs it
/// keys by).
extension DataCache {
    /// Stores `data` under `key` for `lifetime` seconds (`nil`: until evicted), with `tags`: the bytes as they are,
    /// not JSON (which the `Encodable` form would make of a `Data`).
    public func set(_ data: Data, forKey key: String, lifetime: TimeInterval? = nil, tags: [String] = [])
        async throws
    {
        try await set([UInt8](data), forKey: key, lifetime: lifetime, tags: tags)
    }

    /// Stores `data` under `url`'s absolute string.
    public func set(_ data: Data, for url: URL, lifetime: TimeInterval? = nil, tags: [String] = []) async throws {
        try await set([UInt8](data), forKey: url.absoluteString, lifetime: lifetime, tags: tags)
    }

    /// The value under `key` as `Data`, or `nil` when none is stored or it expired.
    public func cachedData(forKey key: String) async -> Data? {
        await data(forKey: key).map { Data($0) }
    }

    /// The value stored for `url`, or `nil` when none is stored or it expired.
    public func data(for url: URL) async -> Data? {
        await cachedData(forKey: url.absoluteString)
    }

    /// Removes the value stored for `url`; `true` if there was one.
    @discardableResult
    public func removeData(for url: URL) async throws -> Bool {
        try await removeValue(forKey: url.absoluteString)
    }
}
