import Foundation
public import SuiteCore

/// The Work tracking module's error: a code to match on, a message naming what was wrong, a hint.
///
/// ```swift
/// do { try await tracker.pause(user: "ana") } catch let error as WorkError where error.code == .invalidTransition {
///     print(error.message)  // "cannot take a break: the day 2026-11-24 is ended; from ended: reopen"
/// }
/// ```
public struct WorkError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code whose ``description`` is `name`, to rebuild a code that crossed a process boundary.
        public init(named name: String) { self.init(name) }

        /// The status flow does not allow this change from the day's current status.
        public static let invalidTransition = Code("invalidTransition")
        /// An interval overlaps another one (a break, or another day's work); the message names it.
        public static let overlap = Code("overlap")
        /// A time, date, month, interval or setting is malformed or out of order.
        public static let invalidInput = Code("invalidInput")
        /// The day, user or undo entry that was named does not exist.
        public static let notFound = Code("notFound")
        /// A file to import is not in the format named.
        public static let invalidFormat = Code("invalidFormat")
        /// The document store failed.
        public static let storage = Code("storage")

        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// What the user can do about it.
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
