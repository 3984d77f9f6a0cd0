import Analytics
import AnalyticsTestSupport
import Foundation
import SuiteCore
import Testing

@Suite struct PrivacyTests {
    let policy = AnalyticsPrivacyPolicy(
        rules: ["email": .hash, "query": .drop, "screen": .keep], otherKeys: .keep, salt: Data("salt".utf8))

    @Test func policyKeepsHashesAndDrops() {
        let result = policy.apply(to: ["email": "a@b.c", "query": "secret", "screen": "inbox", "other": "x"])
        #expect(result["screen"] == "inbox")
        #expect(result["other"] == "x")
        #expect(result["query"] == nil)
        // sha256("salt" + "a@b.c"), computed independently with `printf 'salta@b.c' | sha256sum`.
        #expect(result["email"] == "64e00aeee03713efc7b9a3eb44b91f14610af815d66b43de91beeff6fb5a11ff")
        #expect(result["email"] == policy.hash("a@b.c"))
        #expect(result["email"] != AnalyticsPrivacyPolicy(salt: Data("other".utf8)).hash("a@b.c"))
    }

    @Test func otherKeysDefaultCanDrop() {
        let strict = AnalyticsPrivacyPolicy(rules: ["index": .keep], otherKeys: .drop)
        #expect(strict.apply(to: ["index": "1", "name": "Ann"]) == ["index": "1"])
    }

    @Test func theEngineNeverSeesRawValues() async throws {
        let harness = try Harness(configuration: AnalyticsConfiguration(privacy: policy))
        harness.manager.log(NamedAnalyticsEvent("search", parameters: ["email": "a@b.c", "query": "secret"]))
        try await harness.manager.flush()
        let record = try #require(harness.engine.records.first)
        #expect(record.parameters == ["email": policy.hash("a@b.c")])
        let file = try Data(contentsOf: URL(fileURLWithPath: harness.queue.path))
        #expect(file.range(of: Data("secret".utf8)) == nil)
    }

    @Test func optOutStopsCollectionAndPurgesTheQueue() async throws {
        let harness = try Harness(
            configuration: AnalyticsConfiguration(retry: fixedRetry))
        harness.engine.failNextDeliveries(1)
        harness.manager.log(NamedAnalyticsEvent("before"))
        try await harness.manager.flush()
        #expect(try await harness.manager.queueStatus().pending == 1)

        try await harness.manager.optOut()
        #expect(!harness.manager.isCollecting)
        harness.manager.log(NamedAnalyticsEvent("while_out"))
        harness.clock.advance(by: 10)
        try await harness.manager.flush()
        #expect(try await harness.manager.queueStatus().pending == 0)
        #expect(harness.engine.records.isEmpty)
        #expect(harness.manager.statistics.droppedOptedOut == 1)

        try await harness.manager.optIn()
        harness.manager.log(NamedAnalyticsEvent("after"))
        try await harness.manager.flush()
        #expect(harness.engine.records.map(\.name) == ["after"])
    }

    @Test func samplingRecordsItsRate() async throws {
        let draws = Counter()
        // Alternating draws 0.05, 0.95: a rate of 0.1 keeps every other event.
        let configuration = AnalyticsConfiguration(
            sampling: AnalyticsSampling(rate: 1, rates: ["scroll": 0.1]),
            random: {
                draws.add(1)
                return draws.value % 2 == 1 ? 0.05 : 0.95
            })
        let harness = try Harness(configuration: configuration)
        for _ in 0..<10 { harness.manager.log(NamedAnalyticsEvent("scroll")) }
        harness.manager.log(NamedAnalyticsEvent("tap"))
        try await harness.manager.flush()

        let scrolls = harness.engine.records.filter { $0.name == "scroll" }
        #expect(scrolls.count == 5)
        #expect(scrolls.allSatisfy { $0.sampleRate == 0.1 })
        #expect(harness.engine.records.filter { $0.name == "tap" }.map(\.sampleRate) == [1])
        #expect(harness.manager.statistics.sampledOut == 5)
        #expect(scrolls.map { 1 / $0.sampleRate }.reduce(0, +) == 50)
    }
}
