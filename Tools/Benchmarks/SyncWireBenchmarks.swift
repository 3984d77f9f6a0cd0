import AsyncHTTPClient
import Documents
import Foundation
import NIOCore
import NIOHTTP1
import SuiteCore
import SuiteHTTP
import SuiteServer

/// `suite-bench sync-wire`: bytes on the wire for a replica's first pull of 10,000 order documents (the change feed in
/// pages of 200, as `SyncClient` asks), plain beside gzip and deflate, from a `SuiteServer` on loopback read by a raw
/// client (AsyncHTTPClient with its decompression off, so the bytes counted are the bytes sent).
enum SyncWireBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let count = max(1_000, Int(10_000 * scale))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-wire-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let token = try await accounts.add("bench")
        // Commits of 100, as pushes make them (a page of the feed holds whole commits).
        var index = 0
        while index < count {
            let batch = store.batch()
            for i in index..<min(index + 100, count) {
                batch.setData(
                    OrderGenerator.order(i, customer: i % 97),
                    forDocument: try store.document("users/bench/orders/\(i)"))
            }
            try await batch.commit()
            index += 100
        }
        let server = SuiteServer(store: store, accounts: accounts, configuration: .init(port: 0))
        let (port, task) = try await FirestoreBenchmarks.start { try await server.run(onRunning: $0) }
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { task.cancel() }

        var bytes: [String: Int] = [:]
        do {
            for accept in ["identity", "gzip", "deflate"] {
                bytes[accept] = try await pull(
                    client, port: port, token: token, acceptEncoding: accept, expected: count)
            }
        } catch {
            // AsyncHTTPClient traps when a client is released while running.
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        task.cancel()
        _ = try? await task.value
        await store.close()
        try? accounts.close()

        let plain = Double(bytes["identity"] ?? 0)
        func megabytes(_ value: Double) -> String { String(format: "%.2f MB", value / 1_000_000) }
        var results: [BenchResult] = []
        for coding in ["gzip", "deflate"] {
            let encoded = Double(bytes[coding] ?? 0)
            FileHandle.standardError.write(
                Data(
                    ("sync pull \(count) docs: \(megabytes(plain)) plain, \(megabytes(encoded)) \(coding) "
                        + String(format: "(%.2fx)\n", encoded / plain)).utf8))
            results.append(
                BenchResult(
                    name: "sync pull of \(count) documents, bytes on the wire with \(coding)", ours: encoded / 1000,
                    peer: plain / 1000, peerName: "the same pull without Accept-Encoding", unit: "kB", target: "≤ 0.3"))
        }
        return results
    }

    /// The body bytes of a whole first pull: `GET /v1/sync/changes` from 0 in pages of 200 until `more` is false.
    static func pull(_ client: HTTPClient, port: Int, token: String, acceptEncoding: String, expected: Int)
        async throws -> Int
    {
        var since: Int64 = 0
        var total = 0
        var documents = 0
        while true {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/sync/changes?since=\(since)&limit=200")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.headers.add(name: "Accept-Encoding", value: acceptEncoding)
            let response = try await client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 64 << 20)
            total += body.readableBytes
            let coding = response.headers.first(name: "content-encoding").flatMap { HTTPContentCoding(token: $0) }
            let plain =
                try coding.map { try HTTPCompression.decode(body.readableBytesView, from: $0) }
                ?? Array(body.readableBytesView)
            let page = try JSONValue(parsing: String(decoding: plain, as: UTF8.self))
            documents += page["changes"]?.arrayValue?.count ?? 0
            guard response.status == .ok, let next = page["sequence"]?.intValue else {
                throw AnalyticsBenchmarks.BenchFailure("the pull answered \(response.status): \(page)")
            }
            since = Int64(next)
            if page["more"] != .bool(true) { break }
        }
        guard documents >= expected else {
            throw AnalyticsBenchmarks.BenchFailure("the pull read \(documents) of \(expected) documents")
        }
        return total
    }
}
