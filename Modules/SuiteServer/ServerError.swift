import Foundation
public import SuiteCore

/// The server's error: a code that maps to an HTTP status, a message and a hint, sent as
/// `{"error": {"code", "message", "hint"}}`.
public struct ServerError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        /// The HTTP status the code is answered with.
        public let status: Int
        private init(_ name: String, _ status: Int) {
            self.name = name
            self.status = status
        }

        /// The request is malformed (400).
        public static let invalidRequest = Code("invalidRequest", 400)
        /// No valid bearer token (401).
        public static let unauthenticated = Code("unauthenticated", 401)
        /// The rules do not let the caller do this (403).
        public static let forbidden = Code("forbidden", 403)
        /// The document, user or route does not exist (404).
        public static let notFound = Code("notFound", 404)
        /// A precondition failed: the document changed or exists (409).
        public static let conflict = Code("conflict", 409)
        /// The change log no longer reaches back to the checkpoint asked for (410): the replica must start over.
        public static let gone = Code("gone", 410)
        /// The body is over the limit (413).
        public static let tooLarge = Code("tooLarge", 413)
        /// The body's `Content-Encoding` is not one the server reads (415).
        public static let unsupportedMediaType = Code("unsupportedMediaType", 415)
        /// A quota of the caller is used up (429, with `Retry-After`).
        public static let tooManyRequests = Code("tooManyRequests", 429)
        /// The store or a file cannot be used (503).
        public static let unavailable = Code("unavailable", 503)
        /// A failure of the server itself (500).
        public static let internalError = Code("internalError", 500)

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
    /// Seconds until the request may succeed, sent as `Retry-After` (with ``Code-swift.struct/tooManyRequests``).
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.underlying = underlying
    }

    /// The JSON body: `{"error": {"code", "message", "hint"}}`.
    public var json: JSONValue {
        .object([
            "error": .object([
                "code": .string(code.description), "message": .string(message),
                "hint": hint.map(JSONValue.string) ?? .null,
            ])
        ])
    }
}
