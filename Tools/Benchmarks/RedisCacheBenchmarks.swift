import Cache
import CachePluginSupport
import Foundation
import RedisTestSupport
import SuiteCore
import SuitePluginKit
import SuiteTestSupport

/// Cache hits through our `redis` engine (the RedisCache C plugin behind `PluginCacheStore`, one connection,
/// sequential gets of one 100-byte value) beside `redis-benchmark -t get -c 1 -d 100` on the same throwaway server:
/// what our whole path (Swift adapter, binary payload, C ABI with its deadline, hiredis, the record's expiry check)
/// costs against a bare Redis client.
enum RedisCacheBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let requests = max(1000, Int(100_000 * scale))
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let loader = PluginLoader(searchDirectories: [binDirectory])
        guard (try? loader.resolve("RedisCache")) != nil else {
            FileHandle.standardError.write(
                Data(
                    "redis: no rows, RedisCache not built in release: swift build -c release --product RedisCache\n"
                        .utf8))
            return []
        }
        let server = try RedisServer.start()
        defer { server.stop() }
        let store = try PluginCacheStore(
            plugin: try loader.load("RedisCache"), name: "redis",
            options: ["url": .string(server.url), "prefix": "bench:", "pool": 1])
        let entry = CacheEntry(key: "key", value: Array(repeating: UInt8(ascii: "x"), count: 100))
        try await store.store(entry)
        guard try await store.entry(forKey: "key", now: 0) == entry else {
            throw SuiteError(.internalError, "the redis engine did not return the benchmark's entry")
        }

        // Alternate ours and the peer round by round so both see the same machine load; keep each one's best.
        var ours = 0.0
        var peer = 0.0
        for _ in 0..<3 {
            ours = max(
                ours,
                try await bestRate(operations: requests, repeats: 1) {
                    for _ in 0..<requests { _ = try await store.entry(forKey: "key", now: 0) }
                })
            peer = max(peer, try redisBenchmark(port: server.port, requests: requests))
        }
        try await store.close()
        return [
            BenchResult(
                name: "redis engine hits, 100-byte value, 1 connection", ours: ours, peer: peer,
                peerName: "redis-benchmark -t get -n \(requests) -c 1 -d 100 (same server)", unit: "hits/s",
                target: "≥ 0.5")
        ]
    }

    /// Runs `redis-benchmark` and returns its GET requests per second.
    static func redisBenchmark(port: Int, requests: Int) throws -> Double {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: try RedisServer.tool("redis-benchmark"))
        process.arguments = [
            "-h", "127.0.0.1", "-p", "\(port)", "-t", "get", "-n", "\(requests)", "-c", "1", "-d", "100", "-q",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // The last progress line (\r-separated) is the result: "GET: 41152.26 requests per second, p50=…".
        guard
            let line = text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).last(where: {
                $0.hasPrefix("GET:") && $0.contains("requests per second")
            }),
            let rate = line.dropFirst("GET:".count).split(separator: " ").first.flatMap({ Double($0) })
        else {
            throw SuiteError(.internalError, "cannot read redis-benchmark's output: \(text.suffix(300))")
        }
        return rate
    }
}
