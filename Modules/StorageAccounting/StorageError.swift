import Foundation
public import SuiteCore

/// The Storage module's error: a code to match on, a message, a hint, and the underlying error.
///
/// ```swift
/// do { try await cleaner.execute(plan) } catch let error as StorageError where error.code == .unsafePath { … }
/// ```
public struct StorageError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code whose ``description`` is `name`, to rebuild a code that crossed a process or plugin boundary.
        package init(named name: String) { self.init(name) }

        /// A layout rule, a filter, a date or an option is malformed.
        public static let invalidInput = Code("invalidInput")
        /// A root, item or group that was named does not exist.
        public static let notFound = Code("notFound")
        /// Reading the disk failed (a root that cannot be opened, a failed `lstat`, a failed delete).
        public static let io = Code("io")
        /// The index database failed (SQLite error, not a storage index file, closed).
        public static let storage = Code("storage")
        /// A stored path would leave its managed root (`..`, an absolute path, a symbolic link on the way).
        public static let unsafePath = Code("unsafePath")
        /// The work was cancelled; what was committed before stays committed.
        public static let cancelled = Code("cancelled")

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
