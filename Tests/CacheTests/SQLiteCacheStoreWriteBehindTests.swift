import Foundation
import Logging
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import Cache

/// The SQLite store's opt-in write-behind mode: stores staged in memory, visible at once, written together.
@Suite("SQLite cache store write-behind")
struct SQLiteCacheStoreWriteBehindTests {
    let directory: URL
    var path: String { directory.path + "/cache.sqlite" }

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory("sqlite-cache-write-behind")
    }

    func open(
        delay: Duration? = .seconds(60), byteLimit: Int = 256 << 20, inlineLimit: Int = 16 << 10,
        stagedLimit: Int = 4 << 20
    ) throws -> SQLiteCacheStore {
        try SQLiteCacheStore(
            path: path,
            configuration: .init(
                byteLimit: byteLimit, inlineLimit: inlineLimit, writeBehind: delay, writeBehindLimit: stagedLimit),
            logger: .init(label: "test"), orphanGrace: .zero)
    }

    static func entry(_ key: String, size: Int = 2_000, tags: [String] = []) -> CacheEntry {
        CacheEntry(
            key: key, value: [UInt8](repeating: UInt8(truncatingIfNeeded: key.count), count: size),
            metadata: CacheMetadata(tags: tags))
    }

    /// How many entries another connection (as another process would) finds in the file.
    func committedCount() throws -> Int {
        let other = try open(delay: nil)
        defer { Task { try? await other.close() } }
        return try other.readDatabase("count") { db in try CacheTotals.count(db).entries }
    }

    @Test func aStagedStoreIsReadAtOnceAndCommittedByFlush() async throws {
        let store = try open()
        let entry = Self.entry("a")
        #expect(try await store.store(entry).evicted.isEmpty)
        #expect(try await store.entry(forKey: "a", now: 0) == entry, "visible before it is written")
        #expect(try committedCount() == 0, "not written yet: the delay is a minute")
        try await store.flush()
        #expect(try committedCount() == 1)
        #expect(try await store.entry(forKey: "a", now: 0) == entry, "read from the file now")
        try await store.close()
    }

    @Test func stagedStoresAreWrittenWithinTheDelay() async throws {
        let store = try open(delay: .milliseconds(50))
        for i in 0..<20 { try await store.store(Self.entry("k\(i)")) }
        // Generous: under a full parallel test run on two cores, the timed write's task can wait seconds for a thread.
        // A pass ends the loop as soon as the rows are there (about 50 ms); only a lost write waits it out.
        let deadline = ContinuousClock.now + .seconds(90)
        while try committedCount() < 20, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try committedCount() == 20, "a timed write commits what was staged, without a flush or a close")
        try await store.close()
    }

    @Test func closeWritesWhatIsStaged() async throws {
        let store = try open()
        for i in 0..<50 { try await store.store(Self.entry("k\(i)", size: 100 + i)) }
        try await store.close()
        let reopened = try open(delay: nil)
        for i in 0..<50 {
            #expect(try await reopened.entry(forKey: "k\(i)", now: 0) == Self.entry("k\(i)", size: 100 + i))
        }
        try await reopened.close()
    }

    @Test func reachingTheStagedLimitWritesBeforeTheStoreReturns() async throws {
        let store = try open(stagedLimit: 8 << 10)
        for i in 0..<5 { try await store.store(Self.entry("k\(i)")) }
        #expect(try committedCount() >= 4, "the store crossing 8 KiB staged wrote them")
        try await store.close()
    }

    @Test func removalsSeeStagedEntriesAndAreFinal() async throws {
        let store = try open()
        try await store.store(Self.entry("users/1", tags: ["t"]))
        try await store.store(Self.entry("users/2"))
        try await store.store(Self.entry("posts/1", tags: ["t"]))
        try await store.store(Self.entry("other"))
        #expect(try await store.removeEntry(forKey: "users/1"))
        #expect(try await store.removeEntries(withPrefix: "users/") == 1)
        #expect(try await store.removeEntries(taggedWith: "t") == 1)
        try await store.store(Self.entry("late"))
        try await store.close()
        let reopened = try open(delay: nil)
        for key in ["users/1", "users/2", "posts/1"] { #expect(try await reopened.entry(forKey: key, now: 0) == nil) }
        #expect(try await reopened.entry(forKey: "other", now: 0) != nil)
        #expect(try await reopened.entry(forKey: "late", now: 0) != nil)
        try await reopened.close()
    }

    @Test func anExpiredStagedEntryIsAMiss() async throws {
        let store = try open()
        let entry = CacheEntry(key: "e", value: [1], metadata: CacheMetadata(expiresAt: 1_000))
        try await store.store(entry)
        #expect(try await store.entry(forKey: "e", now: 999) == entry)
        #expect(try await store.entry(forKey: "e", now: 1_000) == nil)
        try await store.close()
    }

    @Test func evictionsAtTheWriteReachTheHandlersAndDataCache() async throws {
        let store = try open(byteLimit: 20 << 10)
        let bus = EventBus()
        let events = Mutex<[String]>([])
        let subscription = bus.subscribe(named: "cache.evict", as: CacheEventPayload.self) { payload, _ in
            events.withLock { $0.append(payload.key) }
        }
        let cache = DataCache(store: store, bus: bus)
        let reported = Mutex(0)
        store.onEvictions { evicted in reported.withLock { $0 += evicted.count } }
        for i in 0..<30 { try await cache.store(Self.entry("k\(i)")) }
        try await store.flush()
        let statistics = try await store.statistics()
        #expect(statistics.bytes <= 20 << 10, "the limit holds once written")
        #expect(reported.withLock { $0 } == 30 - statistics.entries)
        #expect(cache.counts.evictions == 30 - statistics.entries)
        #expect(events.withLock { $0.count } == 30 - statistics.entries)
        #expect(try await store.entry(forKey: "k29", now: 0) != nil, "the newest entry stays")
        #expect(try await store.entry(forKey: "k0", now: 0) == nil, "the oldest went")
        subscription.cancel()
        try await store.close()
    }

    @Test func aStagedValueFileReplacedBeforeTheWriteIsDeleted() async throws {
        let store = try open(inlineLimit: 100)
        try await store.store(Self.entry("big", size: 1_000))
        try await store.store(Self.entry("big", size: 1_200))
        try await store.flush()
        try await store.store(Self.entry("big", size: 1_300))
        try await store.flush()
        let files = try FileManager.default.contentsOfDirectory(atPath: path + ".values")
        #expect(files.count == 1, "one value file for one entry, not \(files)")
        #expect(try await store.entry(forKey: "big", now: 0)?.value.count == 1_300)
        try await store.close()
    }

    @Test func aDelayOutOfRangeIsRefused() throws {
        for delay in [Duration.zero, .seconds(61)] {
            #expect(throws: CacheError.self) { try open(delay: delay) }
        }
        #expect(throws: CacheError.self) { try open(stagedLimit: 0) }
    }
}
