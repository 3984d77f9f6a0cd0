import Documents
import Foundation
import SuiteCore
import SuiteHTTPNIO
import SuiteTestSupport
import Sync

/// `suite-bench sync`: a real `suite serve` (release) on loopback: push throughput against the server engine's own
/// write rate, convergence of two offline replicas, and GET requests/s under wrk against a bare Hummingbird route.
enum SyncBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        if ProcessInfo.processInfo.environment["SUITE_BIN_DIR"]?.isEmpty ?? true {
            setenv("SUITE_BIN_DIR", binDirectory.path, 1)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-sync-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = binDirectory.appendingPathComponent("suite").path
        let serverData = directory.appendingPathComponent("server").path

        let add = try output(suite, ["--data-dir", serverData, "users", "add", "bench", "--json"])
        guard let token = try JSONValue(parsing: add)["token"]?.stringValue else {
            throw AnalyticsBenchmarks.BenchFailure("suite users add printed no token: \(add)")
        }
        let server = TestProcess()
        server.executableURL = URL(fileURLWithPath: suite)
        server.arguments = ["--data-dir", serverData, "serve", "--port", "0", "--json"]
        let pipe = Pipe()
        server.standardOutput = pipe
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let line = String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        guard
            let url = try JSONValue(parsing: line.split(separator: "\n").first.map(String.init) ?? "")["url"]?
                .stringValue
        else { throw AnalyticsBenchmarks.BenchFailure("suite serve did not start: \(line)") }

        var results: [BenchResult] = []
        // 1. Push throughput: N single-document mutations queued offline, then one push.
        let count = max(200, Int(2_000 * scale))
        let replica = try await client(directory, "push", url: url, token: token)
        for index in 0..<count {
            try await replica.write([
                .object(["op": "set", "path": .string("users/bench/items/\(index)"), "data": ["n": .int(Int64(index))]])
            ])
        }
        let pushStart = ContinuousClock.now
        let pushed = try await replica.push()
        let pushSeconds = AnalyticsBenchmarks.seconds(ContinuousClock.now - pushStart)
        guard pushed == count else { throw AnalyticsBenchmarks.BenchFailure("pushed \(pushed) of \(count)") }
        let direct = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("direct.sqlite").path))
        let directStart = ContinuousClock.now
        for index in 0..<count {
            _ = try await direct.document("users/bench/items/\(index)").setData(["n": .int(Int64(index))])
        }
        let directSeconds = AnalyticsBenchmarks.seconds(ContinuousClock.now - directStart)
        await direct.close()
        results.append(
            BenchResult(
                name: "push from one replica, \(count) mutations over HTTP (batches of \(SyncClient.pushBatch))",
                ours: Double(count) / pushSeconds, peer: Double(count) / directSeconds,
                peerName: "the same writes straight into a SQLite Documents store", unit: "mut/s", target: "≥ 0.5"))

        // 2. Two replicas × M offline mutations (increments on one counter), then converge.
        let offline = max(500, Int(10_000 * scale))
        let a = try await client(directory, "a", url: url, token: token)
        let b = try await client(directory, "b", url: url, token: token)
        _ = try await a.write([.object(["op": "set", "path": "users/bench/counter/c", "data": ["n": 0]])])
        try await a.sync()
        try await b.sync()
        for replica in [a, b] {
            for _ in 0..<offline {
                try await replica.write([
                    .object(["op": "update", "path": "users/bench/counter/c", "transforms": ["n": ["increment": 1]]])
                ])
            }
        }
        let convergeStart = ContinuousClock.now
        try await a.sync()
        try await b.sync()
        try await a.sync()
        let convergeSeconds = AnalyticsBenchmarks.seconds(ContinuousClock.now - convergeStart)
        let total = try await a.store.document("users/bench/counter/c").getDocument().get("n", as: Int64.self)
        guard total == Int64(2 * offline) else {
            throw AnalyticsBenchmarks.BenchFailure("converged to \(total ?? -1), not \(2 * offline)")
        }
        results.append(
            BenchResult(
                name:
                    "two replicas × \(offline) offline increments: converge (\(String(format: "%.1f s", convergeSeconds)))",
                ours: Double(2 * offline) / convergeSeconds, peer: Double(count) / directSeconds,
                peerName: "direct SQLite Documents writes (no target: time to converge)", unit: "mut/s"))

        // 3. GET a document at 64 connections (wrk) against a bare Hummingbird route answering the same bytes.
        let body = try output(
            "/usr/bin/curl", ["-s", "-H", "Authorization: Bearer \(token)", "\(url)/v1/docs/users/bench/items/1"])
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        _ = try output(
            "/usr/bin/curl", ["-s", "-X", "PUT", "--data-binary", body, "http://127.0.0.1:\(receiver.port)/static"])
        let ours = try wrk(["-H", "Authorization: Bearer \(token)", "\(url)/v1/docs/users/bench/items/1"])
        let bare = try wrk(["http://127.0.0.1:\(receiver.port)/static"])
        results.append(
            BenchResult(
                name: "GET /v1/docs/… (auth, rules, read), 64 connections, wrk", ours: ours, peer: bare,
                peerName: "a bare Hummingbird route answering the same \(body.utf8.count) bytes", unit: "req/s",
                target: "≥ 0.5"))
        for replica in [replica, a, b] {
            try? await (replica.transport as? HTTPSyncTransport)?.shutdown()
            await replica.store.close()
        }
        return results
    }

    static func client(_ directory: URL, _ name: String, url: String, token: String) async throws -> SyncClient {
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("\(name).sqlite").path))
        let http = AsyncHTTPClientTransport(
            timeout: .seconds(40), connectTimeout: .seconds(3), retryRefusedConnections: false)
        return try await SyncClient(
            store: store, transport: try HTTPSyncTransport(baseURL: url, token: token, http: http))
    }

    static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AnalyticsBenchmarks.BenchFailure("\(executable) \(arguments) failed")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Requests/s of `wrk -t2 -c64 -d3s`, after a 1 s warm-up.
    static func wrk(_ arguments: [String]) throws -> Double {
        _ = try output("/usr/bin/wrk", ["-t2", "-c64", "-d1s"] + arguments)
        let text = try output("/usr/bin/wrk", ["-t2", "-c64", "-d3s"] + arguments)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.split(separator: " ").last ?? "")
        else { throw AnalyticsBenchmarks.BenchFailure("wrk printed no rate: \(text)") }
        return rate
    }
}
