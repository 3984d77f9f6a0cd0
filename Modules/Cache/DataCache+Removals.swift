import SuiteCore

/// Removals publish what they removed, so that a follower of the bus (Storage accounting's `caches` service) can drop
/// the same entries: a `cache.remove` per removed key, or one `cache.clear` when a whole tier is emptied.
///
/// A bulk removal first lists the keys it will remove through ``CacheStore/summaries(after:limit:)`` (a key range for
/// a prefix; every entry, filtered, for a tag or expiry), then removes, then publishes; only keys and sizes are kept
/// between pages. Without a bus nothing is listed. An entry stored under the prefix or tag by someone else between
/// the listing and the removal goes without an event.
extension DataCache {
    /// Entries listed per ``CacheStore/summaries(after:limit:)`` call while finding what a removal removes.
    static let removalPageSize = 4_096

    /// Removes the value under `key`; whether there was one. When there was, publishes a `cache.remove` (reason `key`,
    /// bytes 0: the size is not read).
    @discardableResult
    public func removeValue(forKey key: String, sensitive: Bool = false) async throws -> Bool {
        let removed = try await (sensitive ? protected() : store).removeEntry(forKey: key)
        if removed { publish([(key, 0)], tier: tier(sensitive: sensitive), reason: .key) }
        return removed
    }

    /// Removes every value whose key starts with `prefix`; how many. Publishes a `cache.remove` (reason `prefix`) per
    /// removed key; an empty prefix empties the tier, and publishes one `cache.clear` instead.
    @discardableResult
    public func removeValues(withPrefix prefix: String, sensitive: Bool = false) async throws -> Int {
        let store = try sensitive ? protected() : self.store
        let named = tier(sensitive: sensitive)
        guard !prefix.isEmpty else { return try await clear(store, tier: named) }
        let listed = try await listRemovable(in: store, after: CacheKeyOrder.key(before: prefix)) { summary in
            if summary.key.utf8.starts(with: prefix.utf8) { return .take }
            return CacheKeyOrder.precedes(prefix, summary.key) ? .stop : .skip
        }
        let removed = try await store.removeEntries(withPrefix: prefix)
        publish(listed, tier: named, reason: .prefix)
        return removed
    }

    /// Removes every value tagged `tag`; how many. Publishes a `cache.remove` (reason `tag`) per removed key.
    @discardableResult
    public func removeValues(taggedWith tag: String) async throws -> Int {
        let listed = try await listRemovable(in: store, after: nil) { $0.metadata.tags.contains(tag) ? .take : .skip }
        let removed = try await store.removeEntries(taggedWith: tag)
        publish(listed, tier: tier, reason: .tag)
        return removed
    }

    /// Removes every expired value; how many. Publishes a `cache.remove` (reason `expired`) per removed key.
    @discardableResult
    public func removeExpired() async throws -> Int {
        let now = self.now
        let listed = try await listRemovable(in: store, after: nil) { $0.metadata.isExpired(at: now) ? .take : .skip }
        let removed = try await store.removeExpired(now: now)
        publish(listed, tier: tier, reason: .expired)
        return removed
    }

    /// Removes every value (secrets stay); how many. Publishes one `cache.clear` for the tier (also when it was
    /// already empty), not an event per key.
    @discardableResult
    public func removeAll() async throws -> Int { try await clear(store, tier: tier) }

    /// Empties `store` and publishes a `cache.clear` naming `tier`.
    private func clear(_ store: any CacheStore, tier: String) async throws -> Int {
        let removed = try await store.removeAll()
        publisher?.publish(CacheCleared(payload: CacheClearPayload(tier: tier, entries: removed)))
        return removed
    }

    /// What ``listRemovable(in:after:_:)`` does with a listed entry.
    private enum Listing { case take, skip, stop }

    /// The keys and sizes of the entries of `store` after `start` (in key order) that `decide` takes, until it says
    /// stop or the store has no more; nothing without a bus (no one would be told).
    private func listRemovable(
        in store: any CacheStore, after start: String?, _ decide: (CacheEntrySummary) -> Listing
    ) async throws -> [(key: String, bytes: Int)] {
        guard publisher != nil else { return [] }
        var found: [(key: String, bytes: Int)] = []
        var after = start
        while true {
            let page = try await store.summaries(after: after, limit: Self.removalPageSize)
            for summary in page {
                switch decide(summary) {
                case .take: found.append((summary.key, summary.bytes))
                case .skip: continue
                case .stop: return found
                }
            }
            guard page.count == Self.removalPageSize, let last = page.last else { return found }
            after = last.key
        }
    }

    /// Publishes a `cache.remove` for each of `removed`.
    private func publish(_ removed: [(key: String, bytes: Int)], tier: String, reason: CacheRemovalReason) {
        guard let publisher else { return }
        for entry in removed {
            publisher.publish(
                CacheRemoved(
                    payload: CacheRemovalPayload(key: entry.key, bytes: entry.bytes, tier: tier, reason: reason)))
        }
    }
}
