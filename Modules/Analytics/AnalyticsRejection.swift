/// Why the manager refused an event: it is counted per ``Reason`` in ``AnalyticsStatistics`` and passed to
/// ``AnalyticsConfiguration/onRejection``, and never sent.
public struct AnalyticsRejection: Sendable, Hashable, CustomStringConvertible {
    /// A stable, extensible reason code.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The event name is empty or not letters, digits and `_` starting with a letter.
        public static let invalidName = Reason("invalidName")
        /// The event name is longer than ``AnalyticsLimits/maximumNameLength``.
        public static let nameTooLong = Reason("nameTooLong")
        /// The event or a parameter name starts with one of ``AnalyticsLimits/reservedPrefixes``.
        public static let reservedPrefix = Reason("reservedPrefix")
        /// More parameters than ``AnalyticsLimits/maximumParameterCount``.
        public static let tooManyParameters = Reason("tooManyParameters")
        /// A parameter name is malformed or too long.
        public static let invalidParameterName = Reason("invalidParameterName")
        /// A parameter value is longer than ``AnalyticsLimits/maximumValueLength``.
        public static let valueTooLong = Reason("valueTooLong")

        public var description: String { name }
    }

    /// The rejected event's name (as given, possibly itself the problem).
    public var eventName: String
    /// Why it was rejected.
    public var reason: Reason
    /// A sentence naming the offending part.
    public var detail: String

    /// Creates a rejection.
    package init(eventName: String, reason: Reason, detail: String) {
        self.eventName = eventName
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "event '\(eventName)' rejected (\(reason)): \(detail)" }
}
