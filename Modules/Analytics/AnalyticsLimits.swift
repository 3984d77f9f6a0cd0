/// The limits an event must respect to be sent; the defaults are Firebase Analytics'.
///
/// ```swift
/// var limits = AnalyticsLimits()        // Firebase's
/// limits.maximumParameterCount = 10     // stricter for a backend of your own
/// ```
public struct AnalyticsLimits: Sendable, Hashable {
    /// The longest event name, in characters (Firebase: 40).
    public var maximumNameLength: Int
    /// The most parameters an event may carry (Firebase: 25).
    public var maximumParameterCount: Int
    /// The longest parameter name, in characters (Firebase: 40).
    public var maximumParameterNameLength: Int
    /// The longest parameter value, in characters (Firebase: 100).
    public var maximumValueLength: Int
    /// Prefixes no event or parameter name may start with (Firebase: `firebase_`, `google_`, `ga_`).
    public var reservedPrefixes: [String]

    /// Creates limits; every default is Firebase Analytics'.
    public init(
        maximumNameLength: Int = 40, maximumParameterCount: Int = 25, maximumParameterNameLength: Int = 40,
        maximumValueLength: Int = 100, reservedPrefixes: [String] = ["firebase_", "google_", "ga_"]
    ) {
        self.maximumNameLength = maximumNameLength
        self.maximumParameterCount = maximumParameterCount
        self.maximumParameterNameLength = maximumParameterNameLength
        self.maximumValueLength = maximumValueLength
        self.reservedPrefixes = reservedPrefixes
    }

    /// Checks that every limit is positive.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` naming the limit.
    package func validate() throws(AnalyticsError) {
        let values = [
            ("maximumNameLength", maximumNameLength), ("maximumParameterCount", maximumParameterCount),
            ("maximumParameterNameLength", maximumParameterNameLength), ("maximumValueLength", maximumValueLength),
        ]
        for (name, value) in values where value < 1 {
            throw AnalyticsError(
                .invalidConfiguration, "analytics limit \(name) is \(value); it must be at least 1",
                hint: "pass a positive value, e.g. AnalyticsLimits(\(name): 40)")
        }
    }

    /// The first reason `name` and `parameters` break these limits, or nil when the event is valid.
    public func rejection(name: String, parameters: [String: String]) -> AnalyticsRejection? {
        if let reason = nameProblem(name, maximumLength: maximumNameLength, isEvent: true) {
            return AnalyticsRejection(eventName: name, reason: reason.0, detail: reason.1)
        }
        if parameters.count > maximumParameterCount {
            return AnalyticsRejection(
                eventName: name, reason: .tooManyParameters,
                detail: "\(parameters.count) parameters, at most \(maximumParameterCount)")
        }
        for key in parameters.keys.sorted() {
            if let reason = nameProblem(key, maximumLength: maximumParameterNameLength, isEvent: false) {
                return AnalyticsRejection(eventName: name, reason: reason.0, detail: "parameter '\(key)': \(reason.1)")
            }
            if let value = parameters[key], value.count > maximumValueLength {
                return AnalyticsRejection(
                    eventName: name, reason: .valueTooLong,
                    detail: "parameter '\(key)' is \(value.count) characters, at most \(maximumValueLength)")
            }
        }
        return nil
    }

    private func nameProblem(
        _ name: String, maximumLength: Int, isEvent: Bool
    ) -> (AnalyticsRejection.Reason, String)? {
        let what = isEvent ? "name" : "parameter name"
        guard let first = name.unicodeScalars.first else {
            return (isEvent ? .invalidName : .invalidParameterName, "empty \(what)")
        }
        if name.count > maximumLength {
            return (
                isEvent ? .nameTooLong : .invalidParameterName,
                "\(what) is \(name.count) characters, at most \(maximumLength)"
            )
        }
        let isASCIILetter = { (scalar: Unicode.Scalar) in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        }
        let allowed = name.unicodeScalars.allSatisfy { isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "_" }
        if !isASCIILetter(first) || !allowed {
            return (
                isEvent ? .invalidName : .invalidParameterName,
                "\(what) '\(name)' must be letters, digits and '_', starting with a letter"
            )
        }
        if let prefix = reservedPrefixes.first(where: { name.lowercased().hasPrefix($0.lowercased()) }) {
            return (.reservedPrefix, "\(what) '\(name)' starts with the reserved prefix '\(prefix)'")
        }
        return nil
    }
}
