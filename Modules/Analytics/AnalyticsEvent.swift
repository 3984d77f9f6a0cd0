/// Something worth counting that happened in an app, described by a stable name and string parameters.
///
/// Conform an enum with associated values, so call sites are typed and an engine only ever sees strings:
///
/// ```swift
/// enum AppEvent: AnalyticsEvent {
///     case loginFailed(reason: String)
///     case messageDeleted(index: Int, read: Bool)
///
///     var name: String {
///         switch self {
///         case .loginFailed: "login_failed"
///         case .messageDeleted: "message_deleted"
///         }
///     }
///
///     var parameters: [String: String] {
///         switch self {
///         case .loginFailed(let reason): ["reason": reason]
///         case .messageDeleted(let index, let read): ["index": "\(index)", "read": "\(read)"]
///         }
///     }
/// }
///
/// analytics.log(AppEvent.messageDeleted(index: 3, read: true))
/// ```
///
/// The module's README has the full example. Names and parameters are validated against
/// ``AnalyticsLimits`` when the manager processes the event; an invalid event is rejected, never sent.
public protocol AnalyticsEvent: Sendable {
    /// The event's stable name, e.g. `message_deleted`: letters, digits and `_`, starting with a letter.
    var name: String { get }
    /// The event's parameters (anonymous metadata such as an index or a flag; never personal data).
    var parameters: [String: String] { get }
}

extension AnalyticsEvent {
    /// No parameters, for events that carry none.
    public var parameters: [String: String] { [:] }
}
