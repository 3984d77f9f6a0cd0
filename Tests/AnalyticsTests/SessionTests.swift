import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@testable import Analytics

@Suite struct SessionTests {
    @Test func aSessionStartsWithTheFirstEventAndRotatesAfterThirtyIdleMinutes() async throws {
        let harness = try Harness(appFeatures: true)
        let start = harness.clock.now
        harness.manager.log(NamedAnalyticsEvent("opened"))
        harness.clock.advance(by: 29 * 60)
        harness.manager.log(NamedAnalyticsEvent("tapped"))
        try await harness.manager.flush()
        var records = harness.engine.records
        #expect(records.map(\.name) == ["session_start", "opened", "tapped"])
        let first = try #require(harness.manager.sessionID)
        #expect(records.allSatisfy { $0.sessionID == first })
        #expect(records[0].timestamp == start)

        let lastActivity = harness.clock.now
        harness.clock.advance(by: 30 * 60 + 1)
        harness.manager.log(NamedAnalyticsEvent("returned"))
        try await harness.manager.flush()
        records = Array(harness.engine.records.dropFirst(3))
        #expect(records.map(\.name) == ["session_end", "session_start", "returned"])
        let second = try #require(harness.manager.sessionID)
        #expect(second != first)
        #expect(records[0].sessionID == first && records[0].timestamp == lastActivity)
        #expect(records[0].parameters == ["duration_ms": "\(29 * 60 * 1000)", "events": "2", "reason": "timeout"])
        #expect(records[1].sessionID == second && records[2].sessionID == second)
        #expect(records[1].timestamp == harness.clock.now)
    }

    @Test func theTimeoutIsConfigurable() async throws {
        let policy = AnalyticsSessionPolicy(timeout: .seconds(60))
        let harness = try Harness(configuration: AnalyticsConfiguration(sessions: policy), appFeatures: true)
        harness.manager.log(NamedAnalyticsEvent("a"))
        harness.clock.advance(by: 60)  // exactly the timeout: continues
        harness.manager.log(NamedAnalyticsEvent("b"))
        harness.clock.advance(by: 61)
        harness.manager.log(NamedAnalyticsEvent("c"))
        try await harness.manager.flush()
        let records = harness.engine.records
        #expect(records.map(\.name) == ["session_start", "a", "b", "session_end", "session_start", "c"])
        #expect(Set(records.map(\.sessionID)).count == 2)
        #expect(records[1].sessionID == records[2].sessionID && records[2].sessionID != records[5].sessionID)
        #expect(throws: AnalyticsError.self) {
            try AnalyticsConfiguration(sessions: AnalyticsSessionPolicy(timeout: .zero)).validate()
        }
    }

    @Test func aRelaunchWithinTheTimeoutContinuesTheSession() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let clock = ManualWallClock()
        let first = try Harness(queuePath: path, clock: clock, appFeatures: true)
        first.manager.log(NamedAnalyticsEvent("opened"))
        try await first.manager.shutdown()
        let session = try #require(first.manager.sessionID)

        clock.advance(by: 10 * 60)
        let second = try Harness(queuePath: path, clock: clock, appFeatures: true)
        #expect(second.manager.sessionID == session)
        second.manager.log(NamedAnalyticsEvent("resumed"))
        try await second.manager.shutdown()
        #expect(second.engine.records.map(\.name) == ["resumed"])
        #expect(second.engine.records.first?.sessionID == session)

        clock.advance(by: 31 * 60)
        let third = try Harness(queuePath: path, clock: clock, appFeatures: true)
        #expect(third.manager.sessionID == nil)  // expired: the next event ends it and starts another
        third.manager.log(NamedAnalyticsEvent("next_day"))
        try await third.manager.shutdown()
        let records = third.engine.records
        #expect(records.map(\.name) == ["session_end", "session_start", "next_day"])
        #expect(records[0].sessionID == session && records[0].parameters["events"] == "2")
        #expect(records[0].parameters["duration_ms"] == "\(10 * 60 * 1000)")
        #expect(records[2].sessionID != session)
    }

    @Test func anotherProcessWithinTheTimeoutContinuesTheSession() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let first = try await runStateProbe(path, "log", "opened")
        let session = try #require(first["session"])
        #expect(session != "-")
        let second = try await runStateProbe(path, "log", "resumed")
        #expect(second["session"] == session && second["anonymous"] == first["anonymous"])
    }

    @Test func sessionEventsCanBeSwitchedOffWhileSessionsStillRotate() async throws {
        let policy = AnalyticsSessionPolicy(timeout: .seconds(60), recordsEvents: false)
        let harness = try Harness(configuration: AnalyticsConfiguration(sessions: policy), appFeatures: true)
        harness.manager.log(NamedAnalyticsEvent("a"))
        harness.clock.advance(by: 120)
        harness.manager.log(NamedAnalyticsEvent("b"))
        try await harness.manager.flush()
        let records = harness.engine.records
        #expect(records.map(\.name) == ["a", "b"])
        #expect(records[0].sessionID != records[1].sessionID)
    }

    @Test func theFirstSessionCanBeNamed() async throws {
        let session = UUID()
        let harness = try Harness(configuration: AnalyticsConfiguration(sessionID: session), appFeatures: true)
        harness.manager.log(NamedAnalyticsEvent("a"))
        try await harness.manager.flush()
        #expect(harness.engine.records.map(\.sessionID) == [session, session])
    }
}
