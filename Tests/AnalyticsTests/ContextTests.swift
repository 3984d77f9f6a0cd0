import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

@testable import Analytics

@Suite struct ContextTests {
    let device = AnalyticsAutomaticContext(
        appID: "com.example.mail", appVersion: "3.1", appBuild: "412", osName: "iOS", osVersion: "18.2.0",
        locale: "de_DE")

    @Test func theAutomaticContextIsOnEveryRecordUnderTheConfiguredOne() async throws {
        let configuration = AnalyticsConfiguration(
            context: ["app_version": "3.1-beta", "channel": "testflight"], automaticContext: device)
        let harness = try Harness(configuration: configuration, appFeatures: true)
        harness.manager.log(NamedAnalyticsEvent("opened"))
        try await harness.manager.flush()
        let expected = [
            "app_id": "com.example.mail", "app_version": "3.1-beta", "app_build": "412", "os_name": "iOS",
            "os_version": "18.2.0", "locale": "de_DE", "library_name": "suite-analytics",
            "library_version": AnalyticsAutomaticContext.currentLibraryVersion, "channel": "testflight",
        ]
        #expect(harness.manager.context == expected)
        #expect(harness.engine.records.map(\.name) == ["session_start", "opened"])
        #expect(harness.engine.records.allSatisfy { $0.context == expected })
    }

    @Test func anAppCanSwitchItOff() async throws {
        let configuration = AnalyticsConfiguration(
            context: ["channel": "testflight"], collectsAutomaticContext: false, automaticContext: device)
        let harness = try Harness(configuration: configuration, appFeatures: true)
        harness.manager.log(NamedAnalyticsEvent("opened"))
        try await harness.manager.flush()
        #expect(harness.engine.records.allSatisfy { $0.context == ["channel": "testflight"] })
    }

    @Test func gatheringReadsTheOperatingSystemAndLocale() {
        let values = AnalyticsAutomaticContext.gather(locale: Locale(identifier: "fr_CA")).values
        #expect(values["locale"] == "fr_CA")
        #expect(values["os_name"]?.isEmpty == false)
        #expect(values["os_version"]?.split(separator: ".").count == 3)
        #expect(values["library_name"] == "suite-analytics")
    }
}
