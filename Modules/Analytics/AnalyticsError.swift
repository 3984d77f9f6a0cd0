import Foundation
public import SuiteCore

/// The Analytics module's error: a code to match on, a message, a hint, and the underlying error.
public struct AnalyticsError: SuiteDescribedError {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code whose ``description`` is `name`, to rebuild a code that crossed a process or plugin boundary.
        @_spi(Engine) public init(named name: String) { self.init(name) }

        /// A configuration value (limit, rate, path) is out of range or malformed.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// The persisted queue or an engine's file failed (I/O, SQLite error).
        public static let storage = Code("storage")
        /// An engine could not deliver a batch.
        public static let delivery = Code("delivery")
        /// The traits given to ``AnalyticsManager/identify(userID:traits:)`` break the parameter limits.
        public static let invalidTraits = Code("invalidTraits")
        /// The manager was shut down.
        public static let shutdown = Code("shutdown")

        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// What the caller can do about it.
    public var hint: String?
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.underlying = underlying
    }
}
