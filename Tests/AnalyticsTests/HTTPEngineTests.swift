import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing
import TransportTestSupport

@_spi(Engine) @testable import Analytics

/// The batch uploader against `analytics-receiver`, a real HTTP server on loopback in a process of its own.
@Suite struct HTTPEngineTests {
    /// A manager on a fresh queue delivering through an `HTTPAnalyticsEngine` to `receiver`.
    struct Uploader {
        let engine: HTTPAnalyticsEngine
        let manager: AnalyticsManager
        let clock = ManualWallClock()

        init(
            _ kind: TransportKind, _ receiver: AnalyticsReceiverProcess, batchSize: Int = 100, gzip: Bool = true,
            timeout: Duration = .seconds(10)
        ) throws {
            engine = try HTTPAnalyticsEngine(
                options: .init(
                    url: receiver.batchURL, headers: ["X-Api-Key": "k"], batchSize: batchSize, gzip: gzip,
                    timeout: timeout),
                transport: kind.make(timeout: timeout, connectTimeout: min(timeout, .seconds(5))))
            manager = try AnalyticsManager(
                engine: engine, queue: try AnalyticsQueue(path: TestSupport.temporaryFile("queue.sqlite")),
                configuration: AnalyticsConfiguration(retry: fixedRetry).withoutAppFeatures, clock: clock)
        }

        func log(_ count: Int, name: String = "tick") {
            for index in 0..<count { manager.log(NamedAnalyticsEvent(name, parameters: ["i": "\(index)"])) }
        }
    }

    @Test(arguments: TransportKind.allCases) func deliversGzippedBatchesOfTheConfiguredSize(_ kind: TransportKind)
        async throws
    {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver, batchSize: 40)
        uploader.log(100)
        try await uploader.manager.flush()
        let stats = try await receiver.stats()
        #expect(stats.unique == 100 && stats.duplicates == 0)
        #expect(stats.requests == 3 && stats.gzipped == 3)  // 40 + 40 + 20
        let events = try await receiver.events()
        #expect(events.compactMap { ($0["parameters"] as? [String: String])?["i"] } == (0..<100).map { "\($0)" })
        #expect(events.allSatisfy { $0["id"] is String && $0["sessionID"] is String && $0["timestamp"] is String })
        #expect(try await uploader.manager.queueStatus().pending == 0)
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func concurrentFlushesOfTwoManagersOnOneQueueSendEachEventOnce(
        _ kind: TransportKind
    ) async throws {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let path = TestSupport.temporaryFile("queue.sqlite")
        let engine = try HTTPAnalyticsEngine(
            options: .init(url: receiver.batchURL, batchSize: 10), transport: kind.make())
        let plain = AnalyticsConfiguration().withoutAppFeatures
        let first = try AnalyticsManager(engine: engine, queue: try AnalyticsQueue(path: path), configuration: plain)
        let second = try AnalyticsManager(engine: engine, queue: try AnalyticsQueue(path: path), configuration: plain)
        for index in 0..<200 { first.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(index)"])) }
        try await first.persist()
        async let a: Void = first.flush()
        async let b: Void = second.flush()
        async let c: Void = first.flush()
        _ = try await (a, b, c)
        let stats = try await receiver.stats()
        #expect(stats.unique == 200 && stats.duplicates == 0)
        try await engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func plainBodiesWhenGzipIsOff(_ kind: TransportKind) async throws {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver, gzip: false)
        uploader.log(3)
        try await uploader.manager.flush()
        let stats = try await receiver.stats()
        #expect(stats.unique == 3 && stats.gzipped == 0)
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases, ["500", "503", "429", "408"])
    func transientFailuresAreRetriedWithBackoffAndNothingIsLost(_ kind: TransportKind, status: String) async throws {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver)
        try await receiver.control(mode: status)
        uploader.log(10)
        try await uploader.manager.flush()
        var queue = try await uploader.manager.queueStatus()
        #expect(queue.pending == 10 && queue.retrying == 10)
        #expect(try await receiver.stats().unique == 0)

        try await receiver.control(mode: "ok")
        try await uploader.manager.flush()  // the 1 s backoff has not passed: nothing is sent
        #expect(try await receiver.stats().unique == 0)
        uploader.clock.advance(by: 1.1)
        try await uploader.manager.flush()
        let stats = try await receiver.stats()
        #expect(stats.unique == 10 && stats.duplicates == 0)
        queue = try await uploader.manager.queueStatus()
        #expect(queue.pending == 0 && queue.failed == 0)
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func aRefusedBatchIsSplitSoOnlyTheBadEventIsDropped(_ kind: TransportKind)
        async throws
    {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver)
        try await receiver.control(mode: "ok", reject: "bad_event")
        uploader.log(20)
        uploader.manager.log(NamedAnalyticsEvent("bad_event"))
        uploader.log(20, name: "tock")
        try await uploader.manager.flush()
        let stats = try await receiver.stats()
        #expect(stats.unique == 40 && stats.duplicates == 0)
        let names = try await receiver.events().compactMap { $0["name"] as? String }
        #expect(!names.contains("bad_event") && names.count == 40)
        let queue = try await uploader.manager.queueStatus()
        #expect(queue.failed == 1 && queue.pending == 0)
        #expect(queue.failureReasons.first?.reason.contains("HTTP 400") == true)
        #expect(uploader.manager.statistics.engineRejected == 1)
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func anUnauthorizedBatchIsDroppedWithItsReason(_ kind: TransportKind)
        async throws
    {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver)
        try await receiver.control(mode: "401")
        uploader.log(4)
        try await uploader.manager.flush()
        let queue = try await uploader.manager.queueStatus()
        #expect(queue.failed == 4 && queue.pending == 0)
        #expect(queue.failureReasons == [.init(reason: "HTTP 401", count: 4)])
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func aHangingReceiverTimesOutAndTheBatchIsRetried(_ kind: TransportKind)
        async throws
    {
        let receiver = try await AnalyticsReceiverProcess.start()
        defer { receiver.stop() }
        let uploader = try Uploader(kind, receiver, timeout: .milliseconds(300))
        try await receiver.control(mode: "hang")
        uploader.log(5)
        try await uploader.manager.flush()
        #expect(try await uploader.manager.queueStatus().retrying == 5)
        try await receiver.control(mode: "ok")
        // Retried after its backoff. On a loaded machine a retry can pass the 300 ms timeout too; it is then retried
        // again, so the check is that the batch arrives, each record once, within a few retries.
        for _ in 0..<10 where try await receiver.stats().unique < 5 {
            uploader.clock.advance(by: 60)
            try await uploader.manager.flush()
        }
        #expect(try await receiver.stats().unique == 5)
        try await uploader.engine.shutdown()
    }

    @Test(arguments: TransportKind.allCases) func anUnreachableReceiverIsANetworkErrorRetriedLater(
        _ kind: TransportKind
    ) async throws {
        let engine = try HTTPAnalyticsEngine(
            options: .init(url: "http://127.0.0.1:1/v1/batch", timeout: .seconds(1)),
            transport: kind.make(timeout: .seconds(1), connectTimeout: .seconds(1)))  // nobody listens on port 1
        let record = AnalyticsRecord(
            id: UUID(), name: "tick", parameters: [:], timestamp: Date(timeIntervalSince1970: 0), sessionID: UUID())
        let report = try await engine.deliver([record])
        #expect(report.retry[record.id] != nil && report.rejected.isEmpty)
        try await engine.shutdown()
    }

    @Test func badOptionsAreRefusedWithAHint() throws {
        for options in [
            HTTPAnalyticsEngine.Options(url: "ftp://example.com/batch"),
            HTTPAnalyticsEngine.Options(url: "not a url"),
            HTTPAnalyticsEngine.Options(url: "http://127.0.0.1/batch", batchSize: 0),
        ] {
            #expect(throws: AnalyticsError.self) { try HTTPAnalyticsEngine(options: options) }
        }
        do {
            _ = try HTTPAnalyticsEngine(options: .init(url: "collect.example.com"))
            Issue.record("a URL without a scheme was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration && error.hint?.contains("https://") == true)
        }
    }

    @Test func rejectionsNamedInASuccessBodyAreParsed() {
        let id = UUID()
        let parsed = HTTPAnalyticsEngine.rejections(
            in: #"{"rejected":[{"id":"\#(id.uuidString)","reason":"schema"},{"id":"nope"}]}"#)
        #expect(parsed == [id: "schema"])
        #expect(HTTPAnalyticsEngine.rejections(in: "OK").isEmpty)
    }
}
