import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Synchronization
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
        let store = try open()
        let other = try DatabaseQueue(path: path)
        let release = Flag()
        let holding = Flag()
        let finished = Flag()
        let failed = Flag()
        // On a thread of its own: it blocks while it holds the lock.
        DispatchQueue.global().async {
            do {
                try other.writeWithoutTransaction { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    holding.set()
                    while !release.isSet { usleep(1_000) }
                    try db.execute(sql: "COMMIT")
                }
            } catch {
                failed.set()
                holding.set()
            }
            finished.set()
        }
        while !holding.isSet { try await Task.sleep(for: .milliseconds(1)) }
        let storing = Task { try await store.store(Self.entry(1)) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await store.entry(forKey: Self.entry(1).key, now: 0) == nil, "nothing commits under the lock")
        release.set()
        while !finished.isSet { try await Task.sleep(for: .milliseconds(1)) }
        #expect(!failed.isSet)
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

/// A flag one thread sets and another polls.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
