// A newcomer's program on the Analytics product alone: the README's event enum and "Ten lines", delivering through
// `HTTPAnalyticsEngine` to a real collector (its batch URL and the number of events as arguments), checking its own
// results. Tools/consumer-check.sh builds and runs it, then asks the collector what it received.
import Analytics
import Foundation

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("AnalyticsConsumer: \(message())\n".utf8))
    exit(1)
}

// MARK: - The README's events

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

check(CommandLine.arguments.count == 4, "usage: AnalyticsConsumer DIRECTORY BATCH-URL COUNT")
let dataDirectory = CommandLine.arguments[1]
let batchURL = CommandLine.arguments[2]
let count = Int(CommandLine.arguments[3]) ?? 0
let salt = Data("consumer-check".utf8)

// MARK: - "Ten lines", with the README's HTTP engine in place of SQLite (the logger is left to its default)

let queue = try AnalyticsQueue(path: dataDirectory + "/analytics-queue.sqlite")
let manager = try AnalyticsManager(
    engine: try HTTPAnalyticsEngine(options: .init(url: batchURL)), queue: queue,
    configuration: AnalyticsConfiguration(
        context: ["app_version": "2.4.1"],
        privacy: AnalyticsPrivacyPolicy(rules: ["email": .hash], salt: salt),
        sampling: AnalyticsSampling(rates: ["scroll": 0.1])))
let analytics = manager.logger(for: AppEvent.self)  // pass it in; there is no shared instance
for index in 0..<count {
    analytics.log(.messageDeleted(index: index, read: index.isMultiple(of: 2)))
}
try await manager.flush()  // persisted and delivered (or queued for a retry)

// MARK: - Checks

let statistics = manager.statistics
check(statistics.logged == count, "logged \(statistics.logged) events, expected \(count)")
check(statistics.rejected == 0 && statistics.deliveryFailures == 0, "rejections or failures: \(statistics)")
// The manager records a session_start before the first event (AnalyticsSessionPolicy.recordsEvents).
check(statistics.delivered >= count, "delivered \(statistics.delivered) records, expected at least \(count)")
print("AnalyticsConsumer: ok (\(count) events logged, \(statistics.delivered) records delivered)")
