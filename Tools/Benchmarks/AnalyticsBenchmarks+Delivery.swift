import Analytics
import AsyncHTTPClient
import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1
import SuiteHTTPNIO
import SuiteTestSupport

extension AnalyticsBenchmarks {
    // MARK: - End to end

    /// Row 3: events/s from the first `log` until the loopback receiver has counted every one (its /stats polled),
    /// through `HTTPAnalyticsEngine` with gzip, beside raw sequential POSTs of the same gzip'd bodies (built before the
    /// timing) with AsyncHTTPClient to the same receiver: what the transport and the receiver allow one sender.
    static func endToEnd(scale: Double, directory: String) async throws -> [BenchResult] {
        let total = max(3_000, Int(30_000 * scale))
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        var results: [BenchResult] = []
        do {
            for batchSize in [100, 500] {
                var ours = 0.0
                var peer = 0.0
                for round in 0..<2 {
                    ours = max(
                        ours,
                        try await delivered(
                            total, batchSize: batchSize, receiver: receiver,
                            queuePath: directory + "/e2e-\(batchSize)-\(round).sqlite"))
                    peer = max(
                        peer, try await rawPosts(total, batchSize: batchSize, receiver: receiver, client: client))
                }
                results.append(
                    BenchResult(
                        name: "log → receiver counted, HTTP engine, gzip, batch \(batchSize)", ours: ours, peer: peer,
                        peerName: "raw AsyncHTTPClient POSTs of the same gzip'd batches", unit: "ev/s",
                        target: nil))
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return results
    }

    /// Logs `total` events to a manager delivering to `receiver` and returns events/s once the receiver has them all.
    static func delivered(
        _ total: Int, batchSize: Int, receiver: AnalyticsReceiverProcess, queuePath: String
    ) async throws -> Double {
        let engine = try HTTPAnalyticsEngine(
            options: .init(url: receiver.batchURL, batchSize: batchSize, gzip: true),
            transport: AsyncHTTPClientTransport())
        let queue = try AnalyticsQueue(path: queuePath)
        let manager = try AnalyticsManager(
            engine: engine, queue: queue,
            configuration: AnalyticsConfiguration(
                context: ["app_version": "2.4.1"], bufferCapacity: total, batchSize: batchSize),
            logger: logger)
        let before = try await receiver.stats().received
        let start = ContinuousClock.now
        for i in 0..<total { manager.log(BenchEvent.screenViewed(screen: screens[i & 7], index: i)) }
        try await waitForReceiver(receiver, count: before + total)
        let seconds = seconds(ContinuousClock.now - start)
        try await manager.shutdown()
        try await engine.shutdown()
        let statistics = manager.statistics
        guard statistics.delivered == total else {
            throw BenchFailure("end to end: \(statistics.delivered) of \(total) delivered")
        }
        return Double(total) / seconds
    }

    /// POSTs the same kind of batches as the engine (its own body format, gzip'd beforehand), one at a time.
    static func rawPosts(
        _ total: Int, batchSize: Int, receiver: AnalyticsReceiverProcess, client: HTTPClient
    ) async throws -> Double {
        let records = makeRecords(total)
        var bodies: [ByteBuffer] = []
        var start = 0
        while start < total {
            let end = min(start + batchSize, total)
            var body = ByteBuffer(bytes: try HTTPAnalyticsEngine.body(records[start..<end]))
            bodies.append(try body.compress(with: .gzip()))
            start = end
        }
        let before = try await receiver.stats().received
        let began = ContinuousClock.now
        for body in bodies {
            var request = HTTPClientRequest(url: receiver.batchURL)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Content-Encoding", value: "gzip")
            request.body = .bytes(body)
            let response = try await client.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else { throw BenchFailure("raw POST answered \(response.status)") }
        }
        try await waitForReceiver(receiver, count: before + total)
        return Double(total) / seconds(ContinuousClock.now - began)
    }

    /// Polls the receiver's /stats until it has received `count` records in all (at most two minutes).
    static func waitForReceiver(_ receiver: AnalyticsReceiverProcess, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while try await receiver.stats().received < count {
            guard ContinuousClock.now < deadline else {
                throw BenchFailure("the receiver counted \(try await receiver.stats().received) of \(count) in 120 s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: - Memory with a million events queued

    /// An engine that never delivers: every batch fails, and the retry policy puts it an hour away.
    struct UnreachableEngine: AnalyticsEngine {
        struct Offline: Error {}
        func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport { throw Offline() }
    }

    /// Row 4: logs `1M × scale` events with `persist()` every 10k (so the buffer stays bounded) to an engine that
    /// never delivers, then reports the process's peak RSS (VmHWM, reset first) beside the RSS before plus 64 MiB,
    /// the queue's files beside the records' JSON bytes, and the sustained log + persist rate beside row 2's raw
    /// insert rate.
    static func queuedMemory(scale: Double, directory: String, insertRate: Double) async throws -> [BenchResult] {
        let total = max(20_000, Int(1_000_000 * scale))
        let chunk = 10_000
        let path = directory + "/memory.sqlite"
        let reset = resetPeakRSS()
        let before = processStatus("VmRSS") ?? 0
        let queue = try AnalyticsQueue(path: path)
        let manager = try AnalyticsManager(
            engine: UnreachableEngine(), queue: queue,
            configuration: AnalyticsConfiguration(
                context: ["app_version": "2.4.1"],
                retry: AnalyticsRetryPolicy(initialDelay: 3_600, maximumDelay: 3_600),
                bufferCapacity: chunk, batchSize: 500),
            logger: logger)
        let start = ContinuousClock.now
        var logged = 0
        while logged < total {
            let end = min(logged + chunk, total)
            for i in logged..<end { manager.log(BenchEvent.screenViewed(screen: screens[i & 7], index: i)) }
            try await manager.persist()
            logged = end
        }
        let rate = Double(total) / seconds(ContinuousClock.now - start)
        let peak = processStatus("VmHWM") ?? 0
        let status = try await manager.queueStatus()
        try await manager.shutdown()
        let statistics = manager.statistics
        guard statistics.persisted == total, status.pending + status.inFlight == total else {
            throw BenchFailure(
                "memory: \(statistics.persisted) persisted, \(status.pending + status.inFlight) queued of \(total)")
        }
        let fileBytes = ["", "-wal", "-shm"].reduce(0) { sum, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            return sum + ((attributes?[.size] as? NSNumber)?.intValue ?? 0)
        }
        let jsonBytes = try makeRecords(1)[0].queueJSON().count * total
        let limit = before + (64 << 20)
        let label = total >= 1_000_000 ? "\(total / 1_000_000)M" : "\(total / 1_000)k"
        FileHandle.standardError.write(
            Data(
                ("  memory: RSS before \(before >> 20) MiB, peak \(peak >> 20) MiB"
                    + (reset ? "" : " (peak not reset: VmHWM covers the whole run)")
                    + ", queue files \(fileBytes >> 20) MiB\n").utf8))
        return [
            BenchResult(
                name: "peak RSS, \(label) events queued, engine never delivers", ours: Double(peak),
                peer: Double(limit), peerName: "RSS before + 64 MiB", unit: "bytes", target: "≤ 1"),
            BenchResult(
                name: "queue files (db + wal), \(label) events", ours: Double(fileBytes), peer: Double(jsonBytes),
                peerName: "the records' JSON bytes", unit: "bytes", target: nil),
            BenchResult(
                name: "log + persist() every 10k, sustained, \(label) events", ours: rate, peer: insertRate,
                peerName: "raw GRDB batched INSERT (append row, 1k batches)", unit: "ev/s", target: nil),
        ]
    }
}
