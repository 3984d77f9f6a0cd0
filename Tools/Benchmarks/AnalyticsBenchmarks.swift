@_spi(Engine) import Analytics
import Foundation
import GRDB
import Logging
import SuiteCore
import SuiteTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Analytics against its limits, in the same run: `log()` on the caller beside a bare `AsyncStream` yield of what it
/// captures, the persisted queue's appends beside raw GRDB inserts of the same rows, delivery to the loopback
/// `analytics-receiver` beside raw POSTs of the same gzip'd batches, and the peak memory with a million events queued
/// beside a fixed limit. Ours and the peer alternate round by round; each keeps its best round.
///
/// The receiver is the `analytics-receiver` executable found through `SUITE_BIN_DIR`, which defaults here to the
/// directory of `suite-bench` itself (`make bench` builds both in release).
enum AnalyticsBenchmarks {
    /// The event every row logs: an enum case with two parameters, as an app declares it.
    enum BenchEvent: AnalyticsEvent {
        case screenViewed(screen: String, index: Int)

        var name: String {
            switch self {
            case .screenViewed: "screen_viewed"
            }
        }

        var parameters: [String: String] {
            switch self {
            case .screenViewed(let screen, let index): ["screen": screen, "index": "\(index)"]
            }
        }
    }

    /// What `log` captures of an event (the peer of row 1 yields this, built the same way).
    struct Captured: Sendable {
        var name: String
        var parameters: [String: String]
        var timestamp: Date
    }

    /// The managers' logger: errors only (row 4's engine fails every batch on purpose, a warning each).
    static var logger: Logger {
        var logger = Logger(label: "suite-bench.analytics")
        logger.logLevel = .error
        return logger
    }

    static let screens = ["home", "inbox", "settings", "profile", "search", "compose", "thread", "about"]

    static func run(scale: Double) async throws -> [BenchResult] {
        if ProcessInfo.processInfo.environment["SUITE_BIN_DIR"]?.isEmpty ?? true {
            let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
                .deletingLastPathComponent()
            setenv("SUITE_BIN_DIR", binDirectory.path, 1)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("suite-bench-analytics-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { removeDirectory(directory) }

        var results: [BenchResult] = []
        results.append(try await timed("log cost") { try await logCost(scale: scale, directory: directory) })
        let appends = try await timed("queue appends") { try await queueAppends(scale: scale, directory: directory) }
        results += appends
        results += try await timed("end to end") { try await endToEnd(scale: scale, directory: directory) }
        results += try await timed("memory") {
            try await queuedMemory(scale: scale, directory: directory, insertRate: appends.first?.peer ?? 0)
        }
        return results
    }

    // MARK: - log() on the caller

    /// Row 1: `log` calls only, in chunks that fit the buffer (`bufferCapacity` = chunk, so none is dropped), with a
    /// `persist()` after each chunk outside the timing; the background writer runs beside the caller as in an app.
    static func logCost(scale: Double, directory: String) async throws -> BenchResult {
        let chunk = max(10_000, Int(50_000 * scale))
        let queue = try AnalyticsQueue(path: directory + "/log-cost.sqlite")
        let manager = try AnalyticsManager(
            engine: NoOpAnalyticsEngine(), queue: queue,
            configuration: AnalyticsConfiguration(context: ["app_version": "2.4.1"], bufferCapacity: chunk),
            logger: logger)
        let events = (0..<chunk).map { BenchEvent.screenViewed(screen: screens[$0 & 7], index: $0) }

        let (stream, continuation) = AsyncStream.makeStream(of: Captured.self, bufferingPolicy: .unbounded)
        let drained = Atomic<Int>(0)
        let consumer = Task {
            var checksum = 0
            for await captured in stream {
                checksum &+= captured.parameters.count
                drained.add(1, ordering: .relaxed)
            }
            return checksum
        }

        var ours = 0.0
        var peer = 0.0
        var yielded = 0
        for _ in 0..<5 {
            ours = max(
                ours,
                await bestRate(operations: chunk, repeats: 1) {
                    for event in events { manager.log(event) }
                })
            try await manager.persist()
            peer = max(
                peer,
                await bestRate(operations: chunk, repeats: 1) {
                    for event in events {
                        continuation.yield(
                            Captured(name: event.name, parameters: event.parameters, timestamp: Date()))
                    }
                })
            yielded += chunk
            while drained.load(ordering: .relaxed) < yielded { try await Task.sleep(for: .milliseconds(1)) }
        }
        continuation.finish()
        _ = await consumer.value
        let statistics = manager.statistics
        try await manager.shutdown()
        guard statistics.droppedBufferFull == 0, statistics.persisted == 5 * chunk else {
            throw BenchFailure(
                "log cost: \(statistics.droppedBufferFull) dropped, \(statistics.persisted) of \(5 * chunk) persisted")
        }
        return BenchResult(
            name: "log() on the caller, ev/s (2-param enum; \(chunk / 1_000)k chunks, persist() between untimed)",
            ours: ours, peer: peer, peerName: "AsyncStream.Continuation.yield of the captured struct", unit: "ev/s",
            target: "≥ 1M/s")
    }

    // MARK: - Persisted queue

    /// Row 2: `AnalyticsQueue.append` in batches as the writer hands them over (the records as the writer makes them,
    /// JSON-encoded inside `append`), beside raw GRDB inserts of the same JSON bytes into the same table, one
    /// transaction per batch (both WAL, synchronous NORMAL).
    static func queueAppends(scale: Double, directory: String) async throws -> [BenchResult] {
        let total = max(10_000, Int(60_000 * scale))
        var results: [BenchResult] = []
        for batchSize in [1_000, 100] {
            let queue = try AnalyticsQueue(path: directory + "/append-\(batchSize).sqlite")
            let raw = try await rawPeerPool(path: directory + "/raw-\(batchSize).sqlite", schema: queueSchema)

            var ours = 0.0
            var peer = 0.0
            for _ in 0..<3 {
                let records = makeRecords(total)
                let batches = stride(from: 0, to: total, by: batchSize).map {
                    Array(records[$0..<min($0 + batchSize, total)])
                }
                ours = max(
                    ours,
                    try await bestRate(operations: total, repeats: 1) {
                        for batch in batches { try await queue.append(batch) }
                    })
                let rows = try makeRecords(total).map { ($0.id.uuidString.lowercased(), try $0.queueJSON()) }
                peer = max(
                    peer,
                    try await bestRate(operations: total, repeats: 1) {
                        var start = 0
                        while start < total {
                            let batch = rows[start..<min(start + batchSize, total)]
                            try await raw.write { db in
                                let statement = try db.cachedStatement(
                                    sql: "INSERT OR IGNORE INTO queue (id, record) VALUES (?, ?)")
                                for (id, data) in batch { try statement.execute(arguments: [id, data]) }
                            }
                            start += batchSize
                        }
                    })
            }
            let queued = try await queue.status().pending
            try raw.close()
            guard queued == 3 * total else { throw BenchFailure("queue appends: \(queued) of \(3 * total) queued") }
            results.append(
                BenchResult(
                    name: "AnalyticsQueue.append, \(batchSize)-record batches (JSON encoding included)", ours: ours,
                    peer: peer, peerName: "raw GRDB batched INSERT of the same JSON bytes, same table", unit: "rec/s",
                    target: batchSize == 1_000 ? "≥ 0.5" : nil))
        }
        return results
    }

    /// The queue's table as `AnalyticsQueue`'s migrations leave it.
    static let queueSchema = """
        CREATE TABLE queue (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            record BLOB NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            next_attempt_at REAL NOT NULL DEFAULT 0,
            lease_until REAL,
            failed INTEGER NOT NULL DEFAULT 0,
            lease_owner INTEGER);
        CREATE INDEX queue_leased ON queue(lease_until) WHERE lease_until IS NOT NULL;
        """

    /// `count` records as the writer makes them from `BenchEvent`s logged 10 µs apart: a UUID v7 each, one session,
    /// a context.
    static func makeRecords(_ count: Int) -> [AnalyticsRecord] {
        var generator = SystemRandomNumberGenerator()
        let session = UUID()
        let start = Date()
        return (0..<count).map { i in
            let event = BenchEvent.screenViewed(screen: screens[i & 7], index: i)
            let time = start.addingTimeInterval(Double(i) * 1e-5)
            return AnalyticsRecord(
                id: UUIDv7.make(at: time, using: &generator), name: event.name, parameters: event.parameters,
                timestamp: time, sessionID: session, context: ["app_version": "2.4.1"])
        }
    }

    /// Runs one part, and says on stderr how long it took.
    static func timed<T>(_ part: String, _ body: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        let result = try await body()
        let elapsed = String(format: "%.1f", seconds(ContinuousClock.now - start))
        FileHandle.standardError.write(Data("  \(part): \(elapsed) s\n".utf8))
        return result
    }

    // MARK: - Memory

    /// This process's `field` of /proc/self/status (`VmRSS`, `VmHWM`) in bytes, or nil where there is none.
    static func processStatus(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).filter(\.isNumber)).map { $0 * 1_024 }
        }
        return nil
    }

    /// Resets the kernel's peak-RSS mark (VmHWM) to the current RSS; false where that is not possible.
    static func resetPeakRSS() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Removes `path`, retrying while SQLite, closing a queue in the background, still deletes its -wal and -shm files
    /// (a file that vanishes mid-removal stops `removeItem`).
    static func removeDirectory(_ path: String) {
        for _ in 0..<20 where FileManager.default.fileExists(atPath: path) {
            if (try? FileManager.default.removeItem(atPath: path)) == nil { usleep(50_000) }
        }
    }

    struct BenchFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
