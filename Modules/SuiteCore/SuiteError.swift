public import Foundation

/// An error a person can act on: a message saying what went wrong and, when there is one, a hint saying what to do.
///
/// Every module's error type conforms, so the `suite` command prints any of them the same way:
/// `error: <message>` then `hint: <hint>`; and an app shows any of them as Foundation's `LocalizedError`
/// (`errorDescription` is the message, `recoverySuggestion` the hint), as SwiftUI's `.alert(isPresented:error:)` reads
/// them.
public protocol SuiteDescribedError: LocalizedError, CustomStringConvertible, Sendable {
    /// What went wrong, in one sentence.
    var message: String { get }
    /// What the user can do about it, if anything.
    var hint: String? { get }
}

extension SuiteDescribedError {
    /// The message, for `LocalizedError` (and so `localizedDescription`).
    public var errorDescription: String? { message }
    /// The hint, for `LocalizedError`.
    public var recoverySuggestion: String? { hint }

    public var description: String {
        if let hint { return "\(message) (hint: \(hint))" }
        return message
    }
}

/// The error type of SuiteCore and of the host: a code to match on, a message, a hint and the underlying error.
///
/// ```swift
/// do { try loader.load() } catch let error as SuiteError where error.code == .invalidConfiguration { … }
/// ```
public struct SuiteError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration, invalidArgument, notFound, io, unsupported, internalError, invalidEvent
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A configuration file, variable or flag is malformed or names an unknown key.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// An argument passed by the caller is not acceptable.
        public static let invalidArgument = Code(.invalidArgument)
        /// A file, engine or item that was named does not exist.
        public static let notFound = Code(.notFound)
        /// Reading or writing a file failed.
        public static let io = Code(.io)
        /// The operation is not supported by this engine or build.
        public static let unsupported = Code(.unsupported)
        /// An invariant of Suite itself was broken; please report it.
        public static let internalError = Code(.internalError)
        /// An event could not be encoded or delivered.
        public static let invalidEvent = Code(.invalidEvent)

        public var description: String { base.rawValue }
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
