import Analytics
import AnalyticsTestSupport

/// The README's example enum, compiled as written.
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
