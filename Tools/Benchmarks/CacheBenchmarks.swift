@_spi(Engine) import Cache
import Foundation
import GRDB
import SuiteTestSupport
import Synchronization

/// The cache's stores against their floors, in the same run: the memory tier's hits beside a `[String: [UInt8]]`
/// behind a `Mutex` (the least a thread-safe in-memory cache can do), the SQLite tier's hits beside a raw GRDB point
/// read of a blob by key from a table of the same rows (the least a SQLite-backed cache can do), and the memory tier's
/// peak size beside its limit. Ours and the peer alternate round by round; each keeps its best round.
enum CacheBenchmarks {
    /// Entries in each store (1 KiB values: a typical small API response).
    static let entryCount = 10_000
    static let valueSize = 1_024

    static func run(scale: Double) async throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("suite-bench-cache-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let entries = (0..<entryCount).map { i in
            CacheEntry(
                key: "https://api.example.com/v1/items/\(i)?fields=all",
                value: (0..<valueSize).map { UInt8(truncatingIfNeeded: $0 &+ i) },
                metadata: CacheMetadata(
                    storedAt: 1_700_000_000_000, expiresAt: 4_000_000_000_000, tags: ["items"], status: 200,
                    headers: [CacheHeader("content-type", "application/json"), CacheHeader("etag", "\"\(i)\"")]))
        }
        var random = SplitMix64(seed: 42)
        let order = (0..<(1 << 16)).map { _ in Int(random.next() % UInt64(entryCount)) }

        var results: [BenchResult] = []
        results += try await memoryHits(entries: entries, order: order, scale: scale)
        results += try await diskHits(entries: entries, order: order, scale: scale, directory: directory)
        results.append(try await memoryPeak(scale: scale))
        return results
    }

    // MARK: - Memory tier

    static func memoryHits(entries: [CacheEntry], order: [Int], scale: Double) async throws -> [BenchResult] {
        let operations = max(100_000, Int(2_000_000 * scale))
        let keys = entries.map(\.key)
        let store = try InMemoryCacheStore(byteLimit: 1 << 30)
        for entry in entries { try await store.store(entry) }
        let tiered = TieredCacheStore(
            memory: try InMemoryCacheStore(byteLimit: 1 << 30), back: try InMemoryCacheStore(byteLimit: 1 << 30))
        for entry in entries { try await tiered.store(entry) }
        let asStore: any CacheStore = tiered
        let peer = Mutex<[String: [UInt8]]>([:])
        peer.withLock { dictionary in for entry in entries { dictionary[entry.key] = entry.value } }

        var ours = 0.0
        var oursTiered = 0.0
        var peerRate = 0.0
        var checksum = 0
        for _ in 0..<5 {
            ours = max(
                ours,
                try await bestRate(operations: operations, repeats: 1) {
                    for i in 0..<operations {
                        checksum &+= try await store.entry(forKey: keys[order[i & 0xFFFF]], now: 0)?.value.count ?? 0
                    }
                })
            oursTiered = max(
                oursTiered,
                try await bestRate(operations: operations, repeats: 1) {
                    for i in 0..<operations {
                        checksum &+= try await asStore.entry(forKey: keys[order[i & 0xFFFF]], now: 0)?.value.count ?? 0
                    }
                })
            peerRate = max(
                peerRate,
                await bestRate(operations: operations, repeats: 1) {
                    for i in 0..<operations {
                        checksum &+= peer.withLock { $0[keys[order[i & 0xFFFF]]] }?.count ?? 0
                    }
                })
        }
        guard checksum == 15 * operations * valueSize else {
            throw BenchFailure("memory hits read \(checksum) bytes, not \(15 * operations * valueSize)")
        }
        return [
            BenchResult(
                name: "memory tier hit (InMemoryCacheStore, 10k × 1 KiB)", ours: ours, peer: peerRate,
                peerName: "[String: [UInt8]] behind a Mutex", unit: "hits/s", target: "≥ 0.3"),
            BenchResult(
                name: "tiered store memory hit (as any CacheStore)", ours: oursTiered, peer: peerRate,
                peerName: "[String: [UInt8]] behind a Mutex", unit: "hits/s"),
        ]
    }

    /// The memory tier's largest size after any store, beside its limit plus one entry (what the issue allows):
    /// random sizes, every store followed by a look at the statistics.
    static func memoryPeak(scale: Double) async throws -> BenchResult {
        let limit = 1 << 20
        let store = try InMemoryCacheStore(byteLimit: limit)
        var random = SplitMix64(seed: 7)
        var peak = 0
        var largest = 0
        for i in 0..<max(5_000, Int(50_000 * scale)) {
            let size = 100 + Int(random.next() % 8_000)
            let entry = CacheEntry(
                key: "k\(random.next() % 2_000)", value: [UInt8](repeating: UInt8(i & 0xFF), count: size))
            largest = max(largest, entry.cost)
            try await store.store(entry)
            peak = max(peak, try await store.statistics().bytes)
        }
        FileHandle.standardError.write(Data("  memory peak: \(peak) bytes, limit \(limit)\n".utf8))
        return BenchResult(
            name: "memory tier peak bytes (1 MiB limit, random 0.1–8 KiB entries)", ours: Double(peak),
            peer: Double(limit + largest), peerName: "limit + one entry", unit: "bytes", target: "≤ 1")
    }

    // MARK: - Disk tier

    static func diskHits(entries: [CacheEntry], order: [Int], scale: Double, directory: String) async throws
        -> [BenchResult]
    {
        let operations = max(20_000, Int(60_000 * scale))
        let keys = entries.map(\.key)
        let store = try SQLiteCacheStore(
            path: directory + "/cache.sqlite", configuration: .init(byteLimit: 1 << 30))
        for entry in entries { try await store.store(entry) }

        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -8192") }
        let raw = try DatabasePool(path: directory + "/raw.sqlite", configuration: configuration)
        try await raw.write { db in
            try db.execute(sql: "CREATE TABLE entries (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
            for entry in entries {
                try db.execute(
                    sql: "INSERT INTO entries (key, value) VALUES (?, ?)",
                    arguments: [entry.key, Data(entry.value)])
            }
        }

        var ours = 0.0
        var peer = 0.0
        var checksum = 0
        for _ in 0..<5 {
            ours = max(
                ours,
                try await bestRate(operations: operations, repeats: 1) {
                    for i in 0..<operations {
                        checksum &+= try await store.entry(forKey: keys[order[i & 0xFFFF]], now: 0)?.value.count ?? 0
                    }
                })
            peer = max(
                peer,
                try await bestRate(operations: operations, repeats: 1) {
                    for i in 0..<operations {
                        let key = keys[order[i & 0xFFFF]]
                        let value = try raw.read { db in
                            try Data.fetchOne(
                                db.cachedStatement(sql: "SELECT value FROM entries WHERE key = ?"), arguments: [key])
                        }
                        checksum &+= value?.count ?? 0
                    }
                })
        }
        try await store.close()
        try raw.close()
        guard checksum == 10 * operations * valueSize else {
            throw BenchFailure("disk hits read \(checksum) bytes, not \(10 * operations * valueSize)")
        }
        return [
            BenchResult(
                name: "disk tier hit (SQLiteCacheStore, 10k × 1 KiB inline)", ours: ours, peer: peer,
                peerName: "raw GRDB point read of the blob by key", unit: "hits/s", target: "≥ 0.5")
        ]
    }

    struct BenchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
