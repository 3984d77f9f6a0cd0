import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@testable import Analytics

@Suite struct IdentityTests {
    let policy = AnalyticsPrivacyPolicy(rules: ["email": .hash, "phone": .drop], salt: Data("salt".utf8))

    @Test func identifyPutsTheUserOnLaterRecordsWithTraitsThroughThePrivacyPolicy() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(privacy: policy))
        let anonymous = harness.manager.identity.anonymousID
        harness.manager.log(NamedAnalyticsEvent("before"))
        try harness.manager.identify(
            userID: "u_4821", traits: ["email": "ann@example.com", "phone": "+15550100", "plan": "pro"])
        harness.manager.log(NamedAnalyticsEvent("after"))
        try await harness.manager.flush()

        let redacted = ["email": policy.hash("ann@example.com"), "plan": "pro"]
        #expect(
            harness.manager.identity == AnalyticsIdentity(anonymousID: anonymous, userID: "u_4821", traits: redacted))
        let records = harness.engine.records
        #expect(records.map(\.name) == ["before", "identify", "after"])
        #expect(records.allSatisfy { $0.anonymousID == anonymous })
        #expect(records[0].userID == nil && records[0].traits.isEmpty)
        for record in records.dropFirst() {
            #expect(record.userID == "u_4821")
            #expect(record.traits == redacted)
        }
        for file in [harness.queue.path, harness.queue.path + "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
            #expect(bytes.range(of: Data("ann@example.com".utf8)) == nil)
            #expect(bytes.range(of: Data("+15550100".utf8)) == nil)
        }
    }

    @Test func theIdentityIsKeptBetweenLaunches() async throws {
        let path = TestSupport.temporaryFile("queue.sqlite")
        let first = try Harness(queuePath: path)
        let anonymous = first.manager.identity.anonymousID
        try first.manager.identify(userID: "u1", traits: ["plan": "pro"])
        try await first.manager.shutdown()

        let second = try Harness(queuePath: path)
        #expect(
            second.manager.identity == AnalyticsIdentity(anonymousID: anonymous, userID: "u1", traits: ["plan": "pro"]))
        try await second.manager.shutdown()
        let probe = try await runStateProbe(path, "status")
        #expect(probe["anonymous"] == anonymous.uuidString.lowercased() && probe["user"] == "u1")
    }

    @Test func resetForgetsTheUserMakesANewAnonymousIDAndStartsANewSession() async throws {
        let harness = try Harness(appFeatures: true)
        let anonymous = harness.manager.identity.anonymousID
        try harness.manager.identify(userID: "u1", traits: ["plan": "pro"])
        harness.manager.log(NamedAnalyticsEvent("signed_in"))
        harness.clock.advance(by: 5)
        harness.manager.reset()
        harness.clock.advance(by: 5)
        harness.manager.log(NamedAnalyticsEvent("signed_out"))
        try await harness.manager.flush()

        let records = harness.engine.records
        #expect(
            records.map(\.name) == [
                "session_start", "identify", "signed_in", "session_end", "session_start", "signed_out",
            ])
        let end = records[3]
        #expect(end.parameters["reason"] == "reset" && end.userID == "u1" && end.anonymousID == anonymous)
        #expect(end.sessionID == records[2].sessionID)
        let after = records[5]
        #expect(after.userID == nil && after.traits.isEmpty)
        #expect(after.anonymousID != anonymous && after.anonymousID == harness.manager.identity.anonymousID)
        #expect(after.sessionID != records[2].sessionID && after.sessionID == records[4].sessionID)
        #expect(harness.manager.identity.userID == nil)
    }

    @Test func tooManyTraitsAreATypedErrorAndChangeNothing() throws {
        let harness = try Harness()
        let before = harness.manager.identity
        let traits = Dictionary(uniqueKeysWithValues: (0..<30).map { ("trait_\($0)", "x") })
        #expect {
            try harness.manager.identify(userID: "u1", traits: traits)
        } throws: { error in
            (error as? AnalyticsError)?.code == .invalidTraits && (error as? AnalyticsError)?.hint != nil
        }
        #expect(harness.manager.identity == before)
    }
}
