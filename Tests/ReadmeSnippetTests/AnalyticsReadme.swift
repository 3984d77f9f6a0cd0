// swift-format-ignore-file
// Modules/Analytics/README.md's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them line by line). Compiled,
// not called: they write files in the current directory and bootstrap process-wide systems (AnalyticsTests run the
// same calls).
import Analytics
import CoreMetrics
import Foundation
import Logging
import Tracing

func analyticsReadme() async throws {
    enum AppEvent: AnalyticsEvent {
        case messageDeleted(index: Int, read: Bool)
        var name: String { "message_deleted" }
        var parameters: [String: String] {
            switch self { case .messageDeleted(let index, let read): ["index": "\(index)", "read": "\(read)"] }
        }
    }

    let manager = try AnalyticsManager(
        engine: try SQLiteAnalyticsEngine(path: "analytics.sqlite"), queue: try AnalyticsQueue(path: "queue.sqlite"))
    let analytics = manager.logger(for: AppEvent.self)  // pass it in; there is no shared instance
    analytics.log(.messageDeleted(index: 3, read: true))  // returns at once
    try await manager.flush()  // persisted and delivered (or queued for a retry)
}

func analyticsReadmeConfiguration(dataDirectory: String, salt: Data, logger: Logger) throws {
    let manager = try AnalyticsManager(
        engine: try SQLiteAnalyticsEngine(path: dataDirectory + "/analytics.sqlite"),
        queue: try AnalyticsQueue(path: dataDirectory + "/analytics-queue.sqlite"),
        configuration: AnalyticsConfiguration(
            context: ["app_version": "2.4.1"],
            privacy: AnalyticsPrivacyPolicy(rules: ["email": .hash], salt: salt),
            sampling: AnalyticsSampling(rates: ["scroll": 0.1])),
        logger: logger)
    _ = manager
}

func analyticsReadmeEvents() {
    enum LoginFailureReason: String, Sendable {
        case wrongPassword = "wrong_password"
        case noNetwork = "no_network"
    }

    enum AppEvent: AnalyticsEvent {
        case loginScreenViewed
        case loginAttempted
        case loginFailed(reason: LoginFailureReason)
        case loginSucceeded
        case messageListViewed
        case messageSelected(index: Int)
        case messageDeleted(index: Int, read: Bool)

        var name: String {
            switch self {
            case .loginScreenViewed: "login_screen_viewed"
            case .loginAttempted: "login_attempted"
            case .loginFailed: "login_failed"
            case .loginSucceeded: "login_succeeded"
            case .messageListViewed: "message_list_viewed"
            case .messageSelected: "message_selected"
            case .messageDeleted: "message_deleted"
            }
        }

        var parameters: [String: String] {
            switch self {
            case .loginScreenViewed, .loginAttempted, .loginSucceeded, .messageListViewed: [:]
            case .loginFailed(let reason): ["reason": reason.rawValue]
            case .messageSelected(let index): ["index": "\(index)"]
            case .messageDeleted(let index, let read): ["index": "\(index)", "read": "\(read)"]
            }
        }
    }
    _ = AppEvent.messageDeleted(index: 1, read: false)
}

func analyticsReadmeObservability(
    engine: any AnalyticsEngine, queue: AnalyticsQueue, logger: Logger, prometheus: any MetricsFactory,
    otelTracer: any Tracer, fetchProfile: () async throws -> String
) async throws {
    let analytics = try AnalyticsManager(engine: engine, queue: queue, logger: logger)
    let metrics = try AnalyticsMetricsFactory(manager: analytics)  // a `metric` event per series every 60 s
    MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [metrics, prometheus]))
    InstrumentationSystem.bootstrap(AnalyticsTracer(manager: analytics, forwardingTo: otelTracer))

    let profile = try await analytics.trace("fetch_user_profile", attributes: ["source": "network"]) {
        try await fetchProfile()
    }
    analytics.recordHTTP(
        method: "GET", url: "https://api.example.com/users/42?token=abc", status: 200,
        duration: .milliseconds(84), bytes: 5_120)  // url: https://api.example.com/users/42?token
    analytics.count("export_started", dimensions: ["format": "pdf"])
    metrics.flush()  // before the app goes to the background: emit the windows now
    try await analytics.flush()
    _ = profile
}

func analyticsReadmeConsent(engine: any AnalyticsEngine, queue: AnalyticsQueue) async throws {
    var configuration = AnalyticsConfiguration(collectionEnabled: false)  // collect nothing until the user answers
    configuration.sessions = AnalyticsSessionPolicy(timeout: .seconds(30 * 60))
    let consented = try AnalyticsManager(engine: engine, queue: queue, configuration: configuration)
    try await consented.setConsent(.granted)  // or optIn(); optOut() == setConsent(.denied), kept across launches
    try consented.identify(userID: "u_4821", traits: ["plan": "pro"])  // traits go through the privacy policy
    consented.log(NamedAnalyticsEvent("message_list_viewed"))  // userID, anonymousID, sessionID and context on it
    consented.reset()  // sign-out: no user, a new anonymous id, a new session
}
