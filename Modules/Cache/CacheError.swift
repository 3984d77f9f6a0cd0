import Foundation
public import SuiteCore

/// The Cache module's error: a code to match on, a message, a hint, and the underlying error.
public struct CacheError: SuiteDescribedError {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code whose ``description`` is `name`, to rebuild a code that crossed a process or plugin boundary.
        @_spi(Engine) public init(named name: String) { self.init(name) }

        /// A URL, key, rule or option is malformed.
        public static let invalidInput = Code("invalidInput")
        /// A value is larger than the store accepts (or than its whole byte limit).
        public static let tooLarge = Code("tooLarge")
        /// Nothing is cached for the request and the policy forbids the network (`cache-only`).
        public static let notCached = Code("notCached")
        /// A protected entry could not be decrypted or authenticated (tampered, or another key).
        public static let undecryptable = Code("undecryptable")
        /// The protected tier's key is missing, unreadable or of the wrong size.
        public static let key = Code("key")
        /// The storage failed (I/O, SQLite error, a plugin engine's server).
        public static let storage = Code("storage")
        /// The origin server could not be reached or answered badly.
        public static let network = Code("network")
        /// The engine does not support the operation.
        public static let unsupported = Code("unsupported")

        public var description: String { name }
    }

    public var code: Code
    public var message: String
    public var hint: String?
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, hint: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.underlying = underlying
    }
}
