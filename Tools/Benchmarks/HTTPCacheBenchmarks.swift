import Cache
import Foundation
import SuiteHTTP
import SuiteHTTPNIO
import SuiteTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `suite-bench cache-http`: Suite's HTTP cache beside FoundationNetworking's `URLCache` on the same entries (and how
/// many of its answers are right), and the two HTTP clients the cache could sit on, against a real nginx.
enum HTTPCacheBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        var results = try await versusURLCache(entries: max(200, Int(2_000 * scale)))
        results += try await clients(requests: max(200, Int(2_000 * scale)))
        return results
    }

    /// The same responses stored then looked up, through Suite's cache and through `URLCache` (memory and disk). Ours
    /// runs twice: as `suite` configures it by default (a memory tier in front of SQLite, like URLCache's own memory +
    /// disk; every store still commits to SQLite before it returns) and on SQLite alone. The URLs differ only in a
    /// query item, as an API's pages do.
    static func versusURLCache(entries: Int) async throws -> [BenchResult] {
        let directory = try TestSupport.makeTemporaryDirectory("bench-urlcache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = (0..<entries).map { "https://api.example.com/items?sort=name&page=\($0)" }
        let bodies = (0..<entries).map { Array("page \($0) ".utf8) + [UInt8](repeating: 65, count: 2_000) }
        let headers = ["Cache-Control": "max-age=3600", "Content-Type": "application/json"]

        // Ours: keys by method + normalised URL; the whole response (status, headers) kept with the body.
        // `finish` ends the timed part: a write-behind store writes what it staged there, so the row pays for it.
        func ours(_ store: some CacheStore, finish: () async throws -> Void = {}) async throws -> (
            seconds: Double, right: Int
        ) {
            let cache = DataCache(store: store)
            var right = 0
            let start = ContinuousClock.now
            for i in 0..<entries {
                let key = CacheKey(url: try NormalizedURL(urls[i])).primary
                let metadata = CacheMetadata(
                    storedAt: cache.now, freshUntil: cache.now + 3_600_000, expiresAt: cache.now + 3_600_000,
                    status: 200, headers: headers.map { CacheHeader($0.key, $0.value) })
                try await cache.store(CacheEntry(key: key, value: bodies[i], metadata: metadata))
            }
            for i in 0..<entries {
                let key = CacheKey(url: try NormalizedURL(urls[i])).primary
                if await cache.entry(forKey: key)?.value == bodies[i] { right += 1 }
            }
            try await finish()
            let elapsed = seconds(since: start)
            try await store.close()
            return (elapsed, right)
        }
        let tiered = try await ours(
            TieredCacheStore(
                memory: try InMemoryCacheStore(byteLimit: 8 << 20),
                back: try SQLiteCacheStore(path: directory.appendingPathComponent("tiered.sqlite").path)))
        let sqlite = try await ours(try SQLiteCacheStore(path: directory.appendingPathComponent("ours.sqlite").path))
        // Write-behind (opt-in, as Nuke's DataCache stages its writes): stores written together every 100 ms or per
        // 4 MiB staged; the time includes the final write of everything staged.
        let behind = try SQLiteCacheStore(
            path: directory.appendingPathComponent("behind.sqlite").path,
            configuration: .init(writeBehind: .milliseconds(100)))
        let writeBehind = try await ours(
            TieredCacheStore(memory: try InMemoryCacheStore(byteLimit: 8 << 20), back: behind),
            finish: { try await behind.flush() })

        // URLCache, as FoundationNetworking ships it.
        let urlCache = URLCache(
            memoryCapacity: 8 << 20, diskCapacity: 256 << 20,
            diskPath: directory.appendingPathComponent("urlcache").path)
        var theirsRight = 0
        let theirsStart = ContinuousClock.now
        for i in 0..<entries {
            let url = URL(string: urls[i])!
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!
            urlCache.storeCachedResponse(
                CachedURLResponse(response: response, data: Data(bodies[i])), for: URLRequest(url: url))
        }
        for i in 0..<entries {
            if let cached = urlCache.cachedResponse(for: URLRequest(url: URL(string: urls[i])!)),
                [UInt8](cached.data) == bodies[i]
            {
                theirsRight += 1
            }
        }
        let theirsSeconds = seconds(since: theirsStart)
        FileHandle.standardError.write(
            Data(
                "  right answers of \(entries) lookups: ours \(tiered.right) (tiered), \(sqlite.right) (SQLite), \(writeBehind.right) (write-behind), URLCache \(theirsRight) (its key ignores the query)\n"
                    .utf8))
        return [
            BenchResult(
                name: "store + lookup \(entries) responses (2 KB), ours memory + SQLite with write-behind vs URLCache",
                ours: Double(2 * entries) / writeBehind.seconds, peer: Double(2 * entries) / theirsSeconds,
                peerName: "URLCache", unit: "ops/s", target: "≥ 50"),
            BenchResult(
                name: "the same, every store committed before it returns (the default)",
                ours: Double(2 * entries) / tiered.seconds, peer: Double(2 * entries) / theirsSeconds,
                peerName: "URLCache", unit: "ops/s", target: nil),
            BenchResult(
                name: "the same, ours on SQLite alone (every lookup a SQLite read)",
                ours: Double(2 * entries) / sqlite.seconds, peer: Double(2 * entries) / theirsSeconds,
                peerName: "URLCache", unit: "ops/s", target: nil),
            BenchResult(
                name: "right answers of those lookups (ours vs URLCache)",
                ours: Double(min(tiered.right, sqlite.right, writeBehind.right)),
                peer: Double(max(theirsRight, 1)), peerName: "URLCache", unit: "answers", target: nil),
        ]
    }

    /// Sequential GETs of one small file from nginx: AsyncHTTPClient (the cache's transport) vs URLSession.
    static func clients(requests: Int) async throws -> [BenchResult] {
        let nginx = try NginxServer(files: ["fresh/a.txt": String(repeating: "a", count: 1_000)])
        defer { nginx.stop() }
        let url = nginx.url("/fresh/a.txt")
        let transport = AsyncHTTPClientTransport()
        let ahc = try await bestRate(operations: requests, repeats: 3) {
            for _ in 0..<requests { _ = try await transport.send(HTTPTransportRequest(method: "GET", url: url)) }
        }
        try await transport.shutdown()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration)
        let request = URLRequest(url: URL(string: url)!)
        let urlSession = try await bestRate(operations: requests, repeats: 3) {
            for _ in 0..<requests { _ = try await session.data(for: request) }
        }
        session.invalidateAndCancel()
        return [
            BenchResult(
                name: "sequential GETs from nginx: AsyncHTTPClient vs URLSession (the cache's transport)", ours: ahc,
                peer: urlSession, peerName: "URLSession", unit: "req/s", target: nil)
        ]
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
