import Foundation
public import SuiteCore

/// Why ``HTTPCompression`` could not encode or decode a body: a code to match on, a message and a hint.
///
/// ```swift
/// do { body = try HTTPCompression.gunzip(received, maximumBytes: 1 << 20) } catch where error.code == .tooLarge {
///     // answer 413
/// }
/// ```
public struct HTTPCompressionError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case corrupt, tooLarge, failed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The bytes are not a valid stream of the coding: truncated, damaged, or another format.
        public static let corrupt = Code(.corrupt)
        /// The decoded bytes would pass the `maximumBytes` the caller allowed (a zip bomb, or just too much).
        public static let tooLarge = Code(.tooLarge)
        /// zlib itself failed (out of memory).
        public static let failed = Code(.failed)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong.
    public var message: String
    /// What the caller can do about it.
    public var hint: String?
    /// The error that caused this one, if any (zlib reports statuses, not errors: always `nil` today).
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.underlying = underlying
    }
}
