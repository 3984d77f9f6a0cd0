extension DocumentStore {
    /// Whether the store's data is a local copy its server has not confirmed: Firestore's `isFromCache`.
    ///
    /// A plain store is the source of truth for its own data and always answers `false`. A store that is the replica
    /// of a server (the Sync module's `SyncClient`) answers `true` from the moment the replica opens, and again after
    /// the server could not be reached, until the next pull from the server succeeds. Snapshots carry the value of the
    /// moment they were taken in ``SnapshotMetadata/isFromCache``; ``LiveDocument``, ``LiveQuery`` and
    /// ``LiveAggregation`` keep it current.
    public var isFromCache: Bool { source.isFromCache }

    /// ``isFromCache`` now, then each time it changes, until the store closes (or the consumer stops iterating).
    ///
    /// ```swift
    /// for await isFromCache in store.isFromCacheUpdates() {
    ///     banner.text = isFromCache ? "Offline: showing saved data" : ""
    /// }
    /// ```
    public func isFromCacheUpdates() -> AsyncStream<Bool> { source.updates() }

    /// Sets ``isFromCache``: the Sync module's replica sets it to `true` when it opens and when the server cannot be
    /// reached, to `false` when a pull succeeds. Plumbing for the replica, not part of the API an app calls.
    package func setFromCache(_ isFromCache: Bool) { source.set(isFromCache) }
}
