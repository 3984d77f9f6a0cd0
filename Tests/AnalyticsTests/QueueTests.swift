import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Analytics

@Suite struct QueueTests {
    @Test func flushPersistsAndDeliversAndEmptiesTheQueue() async throws {
        let harness = try Harness()
        for index in 0..<250 { harness.manager.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(index)"])) }
        try await harness.manager.flush()
        #expect(harness.engine.records.map { $0.parameters["i"] } == (0..<250).map { "\($0)" })
        #expect(harness.engine.batches.allSatisfy { $0.count <= 100 })
        let status = try await harness.manager.queueStatus()
        #expect(status == AnalyticsQueueStatus(pending: 0, inFlight: 0, retrying: 0, failed: 0, failureReasons: []))
    }

    @Test func aFailedDeliveryStaysQueuedAndRetriesWithBackoff() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(retry: fixedRetry))
        harness.engine.failNextDeliveries(2)
        harness.manager.log(NamedAnalyticsEvent("tick"))
        try await harness.manager.flush()
        var status = try await harness.manager.queueStatus()
        #expect(status.pending == 1 && status.retrying == 1)
        #expect(harness.engine.records.isEmpty)

        harness.clock.advance(by: 0.5)  // before the 1 s backoff: not retried
        try await harness.manager.flush()
        #expect(harness.engine.batches.count == 1)

        harness.clock.advance(by: 0.6)  // second attempt fails: next in 2 s
        try await harness.manager.flush()
        #expect(harness.engine.batches.count == 2)
        harness.clock.advance(by: 1.5)
        try await harness.manager.flush()
        #expect(harness.engine.batches.count == 2)
        harness.clock.advance(by: 0.6)
        try await harness.manager.flush()
        #expect(harness.engine.records.map(\.name) == ["tick"])
        status = try await harness.manager.queueStatus()
        #expect(status.pending == 0)
        #expect(harness.manager.statistics.deliveryFailures == 2)
    }

    @Test(arguments: [0.1, 1, 1e-7])
    func theQueueEncodingDecodesToTheSameRecord(sampleRate: Double) throws {
        let record = AnalyticsRecord(
            id: UUIDv7.make(), name: "tick",
            parameters: ["quote": "say \"hi\" \\ / \n\t\u{1}\u{7F}", "text": "café 🎉 ünï", "": ""],
            timestamp: Date(timeIntervalSince1970: 1_700_000_000.123_456), sessionID: UUID(),
            context: ["app_version": "2.4.1"], sampleRate: sampleRate)
        #expect(try JSONDecoder().decode(AnalyticsRecord.self, from: record.queueJSON()) == record)
        let empty = AnalyticsRecord(
            id: UUID(), name: "", parameters: [:], timestamp: Date(timeIntervalSinceReferenceDate: -1e12),
            sessionID: UUID())
        #expect(try JSONDecoder().decode(AnalyticsRecord.self, from: empty.queueJSON()) == empty)
    }

    @Test func backoffIsExponentialCappedAndJittered() {
        let policy = AnalyticsRetryPolicy(initialDelay: 1, maximumDelay: 10, random: { 0 })
        #expect((1...6).map { policy.delay(afterAttempts: $0) } == [0.5, 1, 2, 4, 5, 5])
        let full = AnalyticsRetryPolicy(initialDelay: 1, maximumDelay: 10, random: { 0.999_999 })
        #expect(full.delay(afterAttempts: 3) > 3.99)
    }

    @Test func oneRejectedRecordDoesNotDropItsBatch() async throws {
        let engine = InMemoryAnalyticsEngine(rejecting: { $0.parameters["i"] == "2" ? "i=2 is not accepted" : nil })
        let harness = try Harness(engine: engine)
        for index in 0..<5 { harness.manager.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(index)"])) }
        try await harness.manager.flush()
        #expect(engine.records.map { $0.parameters["i"] } == ["0", "1", "3", "4"])
        let status = try await harness.manager.queueStatus()
        #expect(status.failed == 1 && status.pending == 0)
        #expect(status.failureReasons == [.init(reason: "i=2 is not accepted", count: 1)])
        harness.clock.advance(by: 3_600)
        try await harness.manager.flush()
        #expect(engine.batches.count == 1)  // a failed record is never resent
    }

    @Test func aRecordOutOfAttemptsIsFailedWithItsLastError() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(retry: fixedRetry))
        harness.engine.failNextDeliveries(10)
        harness.manager.log(NamedAnalyticsEvent("tick"))
        for _ in 0..<4 {
            try await harness.manager.flush()
            harness.clock.advance(by: 100)
        }
        #expect(harness.engine.batches.count == 3)
        let status = try await harness.manager.queueStatus()
        #expect(status.failed == 1)
        #expect(status.failureReasons.first?.reason.contains("after 3 attempts") == true)
    }

    @Test func aRestartDeliversWhatAnEarlierManagerPersistedEachIDOnce() async throws {
        let path = TestSupport.temporaryFile("restart.sqlite")
        let clock = ManualWallClock()
        let first = try Harness(configuration: AnalyticsConfiguration(retry: fixedRetry), queuePath: path, clock: clock)
        first.engine.failNextDeliveries(1)
        for index in 0..<20 { first.manager.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(index)"])) }
        try await first.manager.flush()
        try await first.manager.shutdown()
        #expect(first.engine.records.isEmpty)

        clock.advance(by: 10)
        let second = try Harness(queuePath: path, clock: clock)
        try await second.manager.flush()
        let ids = second.engine.records.map(\.id)
        #expect(ids.count == 20)
        #expect(Set(ids).count == 20)
        #expect(Set(ids) == Set(first.engine.batches.flatMap { $0 }.map(\.id)))
        #expect(second.engine.records.map { $0.parameters["i"] } == (0..<20).map { "\($0)" })
        #expect(try await second.manager.queueStatus().pending == 0)
    }

    @Test func aRecordLeasedByAKilledProcessIsDeliveredAfterItsLeaseExpires() async throws {
        let path = TestSupport.temporaryFile("lease.sqlite")
        let clock = ManualWallClock()
        let crashed = try AnalyticsQueue(path: path, leaseDuration: 30)
        let record = EngineTests.record("tick")
        try await crashed.append([record])
        _ = try await crashed.lease(limit: 10, after: 0, now: clock.now)  // then "kill -9"
        #expect(try await crashed.status(at: clock.now).inFlight == 1)

        let harness = try Harness(queuePath: path, clock: clock)
        try await harness.manager.flush()
        #expect(harness.engine.records.isEmpty)
        clock.advance(by: 31)
        try await harness.manager.flush()
        #expect(harness.engine.records == [record])
    }

    @Test func concurrentFlushesNeverDeliverTwice() async throws {
        let harness = try Harness()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<50 {
                        harness.manager.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(task)-\(index)"]))
                    }
                    try? await harness.manager.flush()
                }
            }
        }
        try await harness.manager.flush()
        let ids = harness.engine.records.map(\.id)
        #expect(ids.count == 400)
        #expect(Set(ids).count == 400)
    }

    @Test func flushAfterShutdownIsATypedError() async throws {
        let harness = try Harness()
        try await harness.manager.shutdown()
        harness.manager.log(NamedAnalyticsEvent("late"))
        #expect(harness.manager.statistics.droppedAfterShutdown == 1)
        await #expect(throws: AnalyticsError.self) { try await harness.manager.flush() }
    }
}
