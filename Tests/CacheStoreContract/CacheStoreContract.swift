public import Cache
import Testing

/// The behaviour every ``CacheStore`` must show, built-in or plugin: run ``check(_:)`` from a Swift Testing test with
/// a factory of empty stores.
///
/// ```swift
/// @Test func redisStorePassesTheContract() async throws {
///     try await CacheStoreContract.check { limits in try await makeRedisStore(byteLimit: limits.byteLimit) }
/// }
/// ```
///
/// Each check makes a store of its own, works on it through the protocol only, records failures with `#expect`, and
/// closes the store. A store without a byte limit of its own (``CacheStoreStatistics/byteLimit`` `nil`) skips the
/// limit checks.
public enum CacheStoreContract {
    /// The limits a check asks its store to be made with. A factory that cannot honour them exactly should report the
    /// limits it has through ``CacheStore/statistics()``; the checks judge by those.
    public struct Limits: Sendable, Hashable {
        /// The byte limit (sum of ``CacheEntry/cost``).
        public var byteLimit: Int
        /// The count limit; `nil`: none.
        public var countLimit: Int?

        /// Creates limits.
        public init(byteLimit: Int, countLimit: Int? = nil) {
            self.byteLimit = byteLimit
            self.countLimit = countLimit
        }
    }

    /// Makes an empty store with the limits asked for.
    public typealias Factory = @Sendable (Limits) async throws -> any CacheStore

    /// The limits of the checks other than the limit checks: room for everything they store.
    public static let roomy = Limits(byteLimit: 8 << 20)

    /// Runs every check.
    public static func check(_ make: Factory) async throws {
        try await checkRoundTrip(make)
        try await checkReplace(make)
        try await checkMiss(make)
        try await checkExpiry(make)
        try await checkRemovals(make)
        try await checkSummaries(make)
        try await checkStatistics(make)
        try await checkByteLimit(make)
        try await checkTooLarge(make)
        try await checkClose(make)
    }

    /// Runs `body` on a new store made with `limits`, closing the store afterwards.
    static func with(_ make: Factory, _ limits: Limits = roomy, _ body: (any CacheStore) async throws -> Void)
        async throws
    {
        let store = try await make(limits)
        do {
            try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// An entry with every metadata field set.
    static func richEntry(_ key: String, value: [UInt8], tags: [String] = ["t1", "t2"]) -> CacheEntry {
        CacheEntry(
            key: key, value: value,
            metadata: CacheMetadata(
                storedAt: 1_700_000_000_123, freshUntil: 1_700_000_060_000, expiresAt: 4_000_000_000_000, tags: tags,
                status: 203,
                headers: [CacheHeader("Content-Type", "text/plain; charset=utf-8"), CacheHeader("X-Ü", "é ✓")]))
    }

    /// `count` bytes of a pattern that depends on `seed`.
    static func bytes(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ ($0 >> 8)) }
    }

    // MARK: - Reading back

    /// What is stored comes back byte for byte, metadata included, for small, empty and large values and any key.
    public static func checkRoundTrip(_ make: Factory) async throws {
        try await with(make) { store in
            let entries = [
                richEntry("plain", value: bytes(100)),
                richEntry("empty", value: []),
                richEntry("large/64k", value: bytes(64 << 10, seed: 3)),
                richEntry("ünïcode key ✓ /?&=", value: bytes(17, seed: 5), tags: []),
                CacheEntry(key: "bare", value: [0, 255, 0]),
            ]
            for entry in entries { try await store.store(entry) }
            for entry in entries {
                let found = try await store.entry(forKey: entry.key, now: 1_700_000_000_000)
                #expect(found == entry, "round trip of '\(entry.key)'")
            }
        }
    }

    /// A store under an existing key replaces its entry, tags included.
    public static func checkReplace(_ make: Factory) async throws {
        try await with(make) { store in
            try await store.store(richEntry("k", value: bytes(50), tags: ["old"]))
            let second = richEntry("k", value: bytes(30_000, seed: 9), tags: ["new"])
            try await store.store(second)
            #expect(try await store.entry(forKey: "k", now: 0) == second)
            #expect(try await store.statistics().entries == 1)
            #expect(try await store.removeEntries(taggedWith: "old") == 0, "the replaced entry's tags are gone")
            #expect(try await store.entry(forKey: "k", now: 0) == second)
            let third = richEntry("k", value: bytes(10, seed: 1), tags: ["new"])
            try await store.store(third)
            #expect(try await store.entry(forKey: "k", now: 0) == third, "a large value replaced by a small one")
        }
    }

    /// Unknown and removed keys miss.
    public static func checkMiss(_ make: Factory) async throws {
        try await with(make) { store in
            #expect(try await store.entry(forKey: "nothing", now: 0) == nil)
            try await store.store(CacheEntry(key: "a", value: [1]))
            #expect(try await store.entry(forKey: "A", now: 0) == nil, "keys are case-sensitive")
            #expect(try await store.entry(forKey: "a ", now: 0) == nil)
            #expect(try await store.removeEntry(forKey: "a"))
            #expect(try await store.entry(forKey: "a", now: 0) == nil)
        }
    }

    /// An entry is served before its `expiresAt` and missing from it on.
    public static func checkExpiry(_ make: Factory) async throws {
        try await with(make) { store in
            let entry = CacheEntry(
                key: "e", value: [1, 2, 3], metadata: CacheMetadata(storedAt: 500, expiresAt: 1_000))
            try await store.store(entry)
            #expect(try await store.entry(forKey: "e", now: 999) == entry)
            #expect(try await store.entry(forKey: "e", now: 1_000) == nil)
            #expect(try await store.entry(forKey: "e", now: 5_000) == nil)
            let later = CacheEntry(key: "e", value: [4], metadata: CacheMetadata(storedAt: 2_000, expiresAt: 3_000))
            try await store.store(later)
            #expect(try await store.entry(forKey: "e", now: 2_500) == later, "an expired entry is replaced")
        }
    }
}
