import Crypto
import Foundation

/// A ``CacheStore`` that encrypts what it keeps in another store (normally a ``SQLiteCacheStore`` of its own file), so
/// neither values, metadata nor key names appear on disk.
///
/// ```swift
/// let base = try SQLiteCacheStore(path: dataDirectory + "/protected-cache.sqlite")
/// let store = try ProtectedCacheStore(
///     base: base, keyProvider: FileKeyProvider(path: dataDirectory + "/cache.key"),
///     onError: { error in bus.publish(CacheProblem(error)) })
/// ```
///
/// ## What the base store holds
///
/// - The key: HMAC-SHA256 of the real key (hex), under a key derived from the provider's key.
/// - The value: an AES-GCM sealed box of the real key, the metadata and the value, authenticated with the stored key
///   (so a box moved to another row fails). A read checks the real key inside.
/// - The metadata: only `expiresAt` in clear (so the base store expires and drops entries itself), the tags as
///   HMACs (so ``removeEntries(taggedWith:)`` is the base's own), and one header holding a small sealed summary (real
///   key, size, metadata) for ``summaries(after:limit:)`` and ``removeEntries(withPrefix:)``.
///
/// ## Failures
///
/// An entry that does not decrypt or authenticate (tampered with, or written under another key) is a miss: the reader
/// gets `nil` and the store reports a ``CacheError`` `.undecryptable` through `onError`. An entry written under
/// another key is simply not found (its stored key differs).
///
/// ## Costs
///
/// Reads, stores and removal by key or tag cost the base's plus a few microseconds of cryptography. Listings and
/// removal by prefix decrypt the summary of every entry (O(n)): the stored keys are in HMAC order, not key order.
public final class ProtectedCacheStore: Sendable {
    /// The store holding the sealed entries.
    public let base: any CacheStore
    let keys: ProtectedCacheKeys
    let onError: @Sendable (CacheError) -> Void

    /// The header of a base entry carrying its sealed summary.
    static let summaryHeader = "x-suite-sealed-summary"

    /// A store keeping its entries sealed in `base`, with the key from `keyProvider`; undecryptable entries are
    /// reported to `onError`.
    ///
    /// - Throws: ``CacheError`` `.key` when the provider has no usable key.
    public init(
        base: any CacheStore, keyProvider: any CacheKeyProvider,
        onError: @escaping @Sendable (CacheError) -> Void = { _ in }
    ) throws {
        let key = try keyProvider.key()
        guard key.bitCount == 256 else {
            throw CacheError(
                .key, "the protected cache's key has \(key.bitCount) bits, not 256",
                hint: "give the key provider a 32-byte key")
        }
        self.base = base
        self.keys = ProtectedCacheKeys(key)
        self.onError = onError
    }

    /// The key under which `key`'s entry is stored in the base.
    func storedKey(_ key: String) -> String { keys.name("key:" + key) }

    /// The tag under which entries tagged `tag` are tagged in the base.
    func storedTag(_ tag: String) -> String { keys.name("tag:" + tag) }

    /// Reports an entry that cannot be opened.
    func report(_ storedKey: String, _ problem: String) {
        onError(
            CacheError(
                .undecryptable, "the protected cache entry stored as '\(storedKey.prefix(16))…' \(problem)",
                hint: "it was altered on disk or written with another key; it is treated as missing and is replaced "
                    + "by the next store under its key (removeAll() clears the whole store)"))
    }
}

extension ProtectedCacheStore: CacheStore {
    public func entry(forKey key: String, now: Int64) async throws -> CacheEntry? {
        let stored = storedKey(key)
        guard let sealed = try await base.entry(forKey: stored, now: now) else { return nil }
        guard let plain = keys.open(sealed.value, authenticating: stored),
            let entry = ProtectedCacheCodec.decodeEntry(plain)
        else {
            report(stored, "could not be decrypted or authenticated")
            return nil
        }
        guard entry.key == key else {
            report(stored, "holds another key's entry")
            return nil
        }
        return entry.metadata.isExpired(at: now) ? nil : entry
    }

    @discardableResult
    public func store(_ entry: CacheEntry) async throws -> CacheStoreOutcome {
        let stored = storedKey(entry.key)
        let summary = CacheEntrySummary(entry)
        let sealedSummary = try keys.seal(ProtectedCacheCodec.encode(summary), authenticating: stored + "/summary")
        let metadata = CacheMetadata(
            expiresAt: entry.metadata.expiresAt, tags: entry.metadata.tags.map(storedTag),
            headers: [CacheHeader(Self.summaryHeader, Data(sealedSummary).base64EncodedString())])
        let value = try keys.seal(ProtectedCacheCodec.encode(entry), authenticating: stored)
        let outcome = try await base.store(CacheEntry(key: stored, value: value, metadata: metadata))
        return CacheStoreOutcome(evicted: outcome.evicted.compactMap(openSummary))
    }

    @discardableResult
    public func removeEntry(forKey key: String) async throws -> Bool {
        try await base.removeEntry(forKey: storedKey(key))
    }

    /// Decrypts every entry's summary to find the keys under `prefix` (O(n)), then removes them one by one.
    @discardableResult
    public func removeEntries(withPrefix prefix: String) async throws -> Int {
        guard !prefix.isEmpty else { return try await removeAll() }
        var removed = 0
        for (stored, summary) in try await allSummaries() where summary.key.utf8.starts(with: prefix.utf8) {
            if try await base.removeEntry(forKey: stored) { removed += 1 }
        }
        return removed
    }

    @discardableResult
    public func removeEntries(taggedWith tag: String) async throws -> Int {
        try await base.removeEntries(taggedWith: storedTag(tag))
    }

    @discardableResult
    public func removeExpired(now: Int64) async throws -> Int {
        try await base.removeExpired(now: now)
    }

    @discardableResult
    public func removeAll() async throws -> Int {
        try await base.removeAll()
    }

    /// Decrypts every entry's summary (O(n)) and returns a page of them in key order.
    public func summaries(after key: String?, limit: Int) async throws -> [CacheEntrySummary] {
        guard limit > 0 else { return [] }
        var summaries = try await allSummaries().map(\.summary)
        if let key { summaries.removeAll { !CacheKeyOrder.precedes(key, $0.key) } }
        summaries.sort { CacheKeyOrder.precedes($0.key, $1.key) }
        return Array(summaries.prefix(limit))
    }

    public func statistics() async throws -> CacheStoreStatistics {
        var statistics = try await base.statistics()
        statistics.engine = "protected(\(statistics.engine))"
        return statistics
    }

    public func close() async throws {
        try await base.close()
    }

    /// Every entry's stored key and opened summary (entries whose summary does not open are reported and left out).
    private func allSummaries() async throws -> [(stored: String, summary: CacheEntrySummary)] {
        var result: [(stored: String, summary: CacheEntrySummary)] = []
        var after: String?
        while true {
            let page = try await base.summaries(after: after, limit: 1000)
            for sealed in page {
                if let summary = openSummary(sealed) { result.append((sealed.key, summary)) }
            }
            guard page.count == 1000, let last = page.last else { return result }
            after = last.key
        }
    }

    /// The real summary sealed in a base entry's summary, or `nil` (reported).
    private func openSummary(_ sealed: CacheEntrySummary) -> CacheEntrySummary? {
        guard let text = sealed.metadata.header(Self.summaryHeader), let box = Data(base64Encoded: text),
            let plain = keys.open(Array(box), authenticating: sealed.key + "/summary"),
            let summary = ProtectedCacheCodec.decodeSummary(plain)
        else {
            report(sealed.key, "has a summary that could not be decrypted or authenticated")
            return nil
        }
        return summary
    }
}
