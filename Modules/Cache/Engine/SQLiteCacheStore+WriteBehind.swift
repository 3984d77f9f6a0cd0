import Logging
import Synchronization

/// A store that can evict outside ``CacheStore/store(_:)``: a write-behind ``SQLiteCacheStore`` evicts when it
/// writes its staged entries. It reports those evictions to the handlers added here; evictions made during a `store`
/// still come back in its ``CacheStoreOutcome``. ``DataCache`` publishes both as `cache.evict` events.
@_spi(Engine) public protocol CacheEvictionReporting: CacheStore {
    /// Adds `handler`, called with the entries evicted outside a `store` (least recently used first), after the
    /// transaction that evicted them committed.
    func onEvictions(_ handler: @escaping @Sendable ([CacheEntrySummary]) -> Void)
}

@_spi(Engine) extension SQLiteCacheStore: CacheEvictionReporting {
    @_spi(Engine) public func onEvictions(_ handler: @escaping @Sendable ([CacheEntrySummary]) -> Void) {
        evictionHandlers.withLock { $0.append(handler) }
    }
}

extension SQLiteCacheStore {
    func reportEvictions(_ evicted: [CacheEntrySummary]) {
        for handler in evictionHandlers.withLock({ $0 }) { handler(evicted) }
    }

    /// Writes the staged entries now (write-behind mode; otherwise there are none).
    ///
    /// - Throws: ``CacheError`` `.storage` when the transaction fails (the entries stay staged for the next one).
    public func flush() async throws {
        try checkOpen()
        guard !stage.isEmpty else { return }
        try await writeDatabase("write the staged cache entries") { _ in }
    }

    /// Stages a store (write-behind): schedules a write `delay` from now unless one is on its way, and writes at once
    /// when the staged bytes reach the limit.
    func stage(_ entry: CacheEntry, metadata: [UInt8], file: String?, delay: Duration) async throws {
        let staged = stage.put(entry, metadata: metadata, file: file)
        if staged.schedule {
            Task { [self] in
                // A failed write (another process holding the file's write lock, a full disk) is retried, the pause
                // doubling up to 30 s, for as long as something is staged and no later store scheduled its own.
                var pause = delay
                while true {
                    try? await Task.sleep(for: pause)
                    stage.flushStarted()
                    guard !isClosed.load(ordering: .relaxed) else { return }
                    do {
                        try await flush()
                        return
                    } catch {
                        logger.error(
                            "cannot write staged cache entries; retrying",
                            metadata: ["path": "\(path)", "error": "\(error)"])
                    }
                    guard stage.claimRetry() else { return }
                    pause = min(pause * 2, .seconds(30))
                }
            }
        }
        if staged.bytes >= configuration.writeBehindLimit { try await flush() }
    }

    /// The staged entry under `key`, judged at `now`: `.some(nil)` when it is staged but expired.
    func stagedEntry(forKey key: String, now: Int64) -> CacheEntry?? {
        guard configuration.writeBehind != nil, let entry = stage.entry(forKey: key) else { return .none }
        return .some(entry.metadata.isExpired(at: now) ? nil : entry)
    }

    /// Writes the staged entries before a read that must count them (statistics, listings).
    func flushBeforeReading() async throws {
        if configuration.writeBehind != nil { try await flush() }
    }
}
