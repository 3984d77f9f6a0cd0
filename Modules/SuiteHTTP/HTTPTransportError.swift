import Foundation
public import SuiteCore

/// Why an ``HTTPTransport`` got no response: a code to match on, a message, a hint and the underlying error.
///
/// ```swift
/// do { _ = try await transport.send(request) } catch let error as HTTPTransportError where error.code == .unreachable {
///     // offline: try again later
/// }
/// ```
public struct HTTPTransportError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreachable, timedOut, tooLarge, invalidRequest, failed
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// No connection could be made: refused, no route, the host's name unknown, the network down.
        public static let unreachable = Code(.unreachable)
        /// The request took longer than its timeout.
        public static let timedOut = Code(.timedOut)
        /// The response's body was larger than the transport accepts.
        public static let tooLarge = Code(.tooLarge)
        /// The request cannot be sent: its URL is not an absolute http(s) URL, or its method or a header is invalid.
        public static let invalidRequest = Code(.invalidRequest)
        /// The exchange failed part-way (the connection reset, a TLS failure, a malformed response).
        public static let failed = Code(.failed)

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
