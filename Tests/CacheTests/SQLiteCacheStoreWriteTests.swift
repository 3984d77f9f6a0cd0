import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Testing

@testable import Cache

/// The SQLite store's write path: inline commits that give way to another connection holding the write lock, and a
/// write-ahead log that stays bounded although checkpoints left the stores' commits.
@Suite("SQLite cache store writes")
struct SQLiteCacheStoreWriteTests {
    let directory: URL
    var path: String { directory.path + "/cache.sqlite" }

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory("sqlite-cache-writes")
    }

    func open() throws -> SQLiteCacheStore {
        try SQLiteCacheStore(path: path, configuration: .init(), logger: .init(label: "test"), orphanGrace: .zero)
    }

    static func entry(_ i: Int, size: Int = 2_000) -> CacheEntry {
        CacheEntry(
            key: "GET https://api.example.com/items?page=\(i)",
            value: [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: size),
            metadata: CacheMetadata(storedAt: 1, expiresAt: 4_000_000_000_000, status: 200))
    }

    /// While another connection (another process) holds the write lock, a store waits for it, without failing and
    /// without giving up, and commits once the lock is released.
    @Test func aStoreWaitsForAnotherWriter() async throws {
        // The store says, at debug level, when an inline write gives way to another connection's lock.
        let (logLines, log) = AsyncStream.makeStream(of: String.self)
        let store = try SQLiteCacheStore(
            path: path, configuration: .init(),
            logger: Logger(label: "test") { _ in SignallingLogHandler { log.yield($0) } }, orphanGrace: .zero)
        let other = try DatabaseQueue(path: path)
        let (lockTaken, taken) = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        // Another connection takes the write lock and holds it until released, on a thread of its own (it blocks).
        let holder = Task {
            try await TestSupport.offThePool {
                defer { taken.finish() }
                try other.writeWithoutTransaction { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    taken.yield()
                    release.wait()
                    try db.execute(sql: "COMMIT")
                }
            }
        }
        var lock = lockTaken.makeAsyncIterator()
        try #require(await lock.next() != nil, "the other connection could not take the write lock")
        let storing = Task {
            defer { log.finish() }
            try await store.store(Self.entry(1))
        }
        var waiting = false
        for await line in logLines where line.contains("waiting for it") {
            waiting = true
            break
        }
        #expect(waiting, "the store did not wait for the lock")
        #expect(try await store.entry(forKey: Self.entry(1).key, now: 0) == nil, "nothing commits under the lock")
        release.signal()
        try await holder.value
        _ = try await storing.value
        #expect(try await store.entry(forKey: Self.entry(1).key, now: 0) == Self.entry(1))
        try other.close()
        try await store.close()
    }

    /// Stores written back to back, faster than a passive checkpoint can follow, leave a log of bounded size (the
    /// catch-up checkpoint between writes), and every entry readable through a second connection.
    @Test func theLogStaysBounded() async throws {
        let store = try open()
        let count = 2_000  // ~8 log pages each: 16,000 pages without checkpoints
        for i in 0..<count { try await store.store(Self.entry(i)) }
        let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        let page = 4_096 + 24
        #expect(log <= 2 * CacheCheckpointer.catchUpPages * page, "the log grew to \(log / page) pages")
        let second = try open()
        #expect(try await second.statistics().entries == count)
        for i in stride(from: 0, to: count, by: 97) {
            #expect(try await second.entry(forKey: Self.entry(i).key, now: 0) == Self.entry(i))
        }
        try await second.close()
        try await store.close()
    }
}
