import Analytics
import AnalyticsTestSupport
import Testing

@Suite struct ValidationTests {
    let limits = AnalyticsLimits()

    @Test(arguments: [
        ("", AnalyticsRejection.Reason.invalidName),
        ("1st_event", .invalidName),
        ("has space", .invalidName),
        ("café", .invalidName),
        (String(repeating: "a", count: 41), .nameTooLong),
        ("firebase_open", .reservedPrefix),
        ("google_x", .reservedPrefix),
        ("ga_session", .reservedPrefix),
    ])
    func badNamesAreRejected(name: String, reason: AnalyticsRejection.Reason) {
        #expect(limits.rejection(name: name, parameters: [:])?.reason == reason)
    }

    @Test func goodEventsPass() {
        #expect(limits.rejection(name: String(repeating: "a", count: 40), parameters: [:]) == nil)
        #expect(limits.rejection(name: "message_deleted", parameters: ["index": "3", "read": "true"]) == nil)
    }

    @Test func parameterLimits() {
        let many = Dictionary(uniqueKeysWithValues: (0..<26).map { ("p\($0)", "v") })
        #expect(limits.rejection(name: "e", parameters: many)?.reason == .tooManyParameters)
        #expect(limits.rejection(name: "e", parameters: ["9lives": "x"])?.reason == .invalidParameterName)
        #expect(limits.rejection(name: "e", parameters: ["ga_x": "x"])?.reason == .reservedPrefix)
        #expect(
            limits.rejection(name: "e", parameters: ["k": String(repeating: "x", count: 101)])?.reason == .valueTooLong)
        #expect(limits.rejection(name: "e", parameters: ["k": String(repeating: "x", count: 100)]) == nil)
        let custom = AnalyticsLimits(maximumParameterCount: 1)
        #expect(custom.rejection(name: "e", parameters: ["a": "1", "b": "2"])?.reason == .tooManyParameters)
    }

    @Test func invalidEventsAreCountedReportedAndNeverSent() async throws {
        let reported = Collected<AnalyticsRejection>()
        let harness = try Harness(configuration: AnalyticsConfiguration(onRejection: { reported.append($0) }))
        harness.manager.log(NamedAnalyticsEvent("ok_event"))
        harness.manager.log(NamedAnalyticsEvent("bad name"))
        harness.manager.log(NamedAnalyticsEvent("firebase_thing"))
        harness.manager.log(NamedAnalyticsEvent("long_value", parameters: ["v": String(repeating: "x", count: 200)]))
        harness.manager.log(NamedAnalyticsEvent("also_bad!"))
        try await harness.manager.flush()

        #expect(harness.engine.batches.flatMap { $0 }.map(\.name) == ["ok_event"])
        let statistics = harness.manager.statistics
        #expect(statistics.rejected == 4)
        #expect(statistics.rejectedByReason == [.invalidName: 2, .reservedPrefix: 1, .valueTooLong: 1])
        #expect(reported.values.map(\.eventName) == ["bad name", "firebase_thing", "long_value", "also_bad!"])
        #expect(reported.values[2].detail.contains("'v'"))
    }
}
