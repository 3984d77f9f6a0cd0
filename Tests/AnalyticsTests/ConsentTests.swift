import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@testable import Analytics

@Suite struct ConsentTests {
    @Test func anOptOutInOneProcessHoldsWhenTheNextStarts() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let first = try await runStateProbe(path, "log", "opened", "opt-out")
        #expect(first["consent"] == "denied" && first["collecting"] == "false")

        let harness = try Harness(queuePath: path)
        #expect(harness.manager.consent == .denied)
        #expect(!harness.manager.isCollecting)
        harness.manager.log(NamedAnalyticsEvent("while_out"))
        try await harness.manager.flush()
        #expect(harness.engine.records.isEmpty)
        #expect(harness.manager.statistics.droppedOptedOut == 1)
        #expect(try await harness.manager.queueStatus().pending == 0)

        try await harness.manager.optIn()
        try await harness.manager.shutdown()
        let third = try await runStateProbe(path, "status")
        #expect(third["consent"] == "granted" && third["collecting"] == "true")
    }

    @Test func aStoredConsentOverridesTheConfiguredDefault() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let waitForConsent = AnalyticsConfiguration(collectionEnabled: false)
        let first = try Harness(configuration: waitForConsent, queuePath: path)
        #expect(first.manager.consent == .undetermined && !first.manager.isCollecting)
        first.manager.log(NamedAnalyticsEvent("before_consent"))
        try await first.manager.setConsent(.granted)
        first.manager.log(NamedAnalyticsEvent("after_consent"))
        try await first.manager.shutdown()
        #expect(first.engine.records.map(\.name) == ["after_consent"])

        let second = try Harness(configuration: waitForConsent, queuePath: path)
        #expect(second.manager.consent == .granted && second.manager.isCollecting)
        try await second.manager.setConsent(.undetermined)
        #expect(!second.manager.isCollecting)
        try await second.manager.shutdown()
        let third = try Harness(configuration: waitForConsent, queuePath: path)
        #expect(third.manager.consent == .undetermined && !third.manager.isCollecting)
    }

    @Test func optingOutDropsBufferedAndQueuedEventsAndForgetsTheSession() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(retry: fixedRetry), appFeatures: true)
        harness.engine.failNextDeliveries(1)
        harness.manager.log(NamedAnalyticsEvent("queued"))
        try await harness.manager.flush()
        #expect(try await harness.manager.queueStatus().pending == 2)  // session_start, queued
        #expect(harness.manager.sessionID != nil)

        try await harness.manager.optOut()
        #expect(try await harness.manager.queueStatus().pending == 0)
        #expect(harness.manager.sessionID == nil)
        try await harness.manager.optIn()
        harness.manager.log(NamedAnalyticsEvent("after"))
        try await harness.manager.flush()
        #expect(harness.engine.records.map(\.name) == ["session_start", "after"])
    }
}
