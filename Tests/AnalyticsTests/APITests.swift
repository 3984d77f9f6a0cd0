import AnalyticsTestSupport
import Foundation
import SuiteCore
import Testing

@testable import Analytics

@Suite struct APITests {
    @Test func uuidV7HasVersionVariantAndTimestamp() {
        var generator = SystemRandomNumberGenerator()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let id = UUIDv7.make(at: date, using: &generator)
        let bytes = id.uuid
        #expect(bytes.6 >> 4 == 7)
        #expect(bytes.8 >> 6 == 0b10)
        #expect(UUIDv7.unixMilliseconds(of: id) == 1_700_000_000_123)
        #expect(id.uuidString.lowercased().dropFirst(14).first == "7")
    }

    @Test func uuidV7SortsByTime() {
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<100).map { UUIDv7.make(unixMilliseconds: UInt64(1_000 + $0), using: &generator) }
        #expect(ids.map { $0.uuidString } == ids.map { $0.uuidString }.sorted())
        #expect(Set(ids).count == 100)
    }

    @Test func logEnrichesEachEventIntoARecord() async throws {
        let session = UUID()
        let harness = try Harness(
            configuration: AnalyticsConfiguration(context: ["app_version": "2.4.1"], sessionID: session))
        let analytics = harness.manager.logger(for: AppEvent.self)
        analytics.log(.messageDeleted(index: 3, read: true))
        analytics.log(.loginFailed(reason: .wrongPassword))
        try await harness.manager.flush()

        let records = harness.engine.records
        #expect(records.map(\.name) == ["message_deleted", "login_failed"])
        #expect(records[0].parameters == ["index": "3", "read": "true"])
        #expect(records[1].parameters == ["reason": "wrong_password"])
        for record in records {
            #expect(record.sessionID == session)
            #expect(record.context == ["app_version": "2.4.1"])
            #expect(record.timestamp == harness.clock.now)
            #expect(record.sampleRate == 1)
            #expect(UUIDv7.unixMilliseconds(of: record.id) == UInt64(harness.clock.now.timeIntervalSince1970 * 1000))
        }
        #expect(harness.manager.statistics.delivered == 2)
        try await harness.manager.shutdown()
    }

    /// `log` never waits for delivery: with the engine held shut, 1,000 events are logged (a `log` that waited would
    /// hang, which the time limit turns into a failure) and none is delivered until the engine is let go.
    @Test(.timeLimit(.minutes(1))) func logReturnsAtOnceWhileTheEngineIsHeld() async throws {
        let engine = HeldEngine()
        await engine.gate.lock()
        let queue = try AnalyticsQueue(path: SuiteTestSupportPath.file("held.sqlite"))
        let manager = try AnalyticsManager(
            engine: engine, queue: queue, configuration: AnalyticsConfiguration().withoutAppFeatures)
        for index in 0..<1_000 { manager.log(NamedAnalyticsEvent("tick", parameters: ["i": "\(index)"])) }
        #expect(engine.count == 0)
        engine.gate.unlock()
        try await manager.flush()
        #expect(engine.count == 1_000)
    }

    @Test func aFullBufferDropsAndCounts() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(bufferCapacity: 1))
        // How many fit depends on when the writer drains the one-slot buffer;
        // every event is either persisted or counted.
        for _ in 0..<50 { harness.manager.log(NamedAnalyticsEvent("tick")) }
        try await harness.manager.flush()
        let statistics = harness.manager.statistics
        #expect(statistics.logged == 50)
        #expect(statistics.persisted + statistics.droppedBufferFull == 50)
        #expect(harness.engine.records.count == statistics.persisted)
    }

    @Test func invalidConfigurationIsATypedError() {
        #expect(throws: AnalyticsError.self) {
            _ = try AnalyticsManager(
                engine: NoOpAnalyticsEngine(), queue: AnalyticsQueue(path: SuiteTestSupportPath.file("q.sqlite")),
                configuration: AnalyticsConfiguration(sampling: AnalyticsSampling(rate: 0)))
        }
        #expect(throws: AnalyticsError.self) { try AnalyticsLimits(maximumNameLength: 0).validate() }
    }
}

/// An engine whose deliveries wait until its gate is open.
final class HeldEngine: AnalyticsEngine {
    let gate = AsyncGate()
    private let total = Counter()
    var count: Int { total.value }

    func deliver(_ batch: [AnalyticsRecord]) async throws -> DeliveryReport {
        await gate.lock()
        gate.unlock()
        total.add(batch.count)
        return .delivered
    }
}
