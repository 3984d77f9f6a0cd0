import Foundation
public import SuiteCore

/// The Documents module's error: a code to match on, a message, a hint, and the underlying error.
public struct DocumentsError: SuiteDescribedError {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The code whose ``description`` is `name`, to rebuild a code that crossed a process or plugin boundary as
        /// text. A name that no code below has (sent by a newer Suite) still round-trips, but equals none of them.
        public init(named name: String) { self.init(name) }

        /// A path is malformed, or names a collection where a document is needed (or the reverse).
        public static let invalidPath = Code("invalidPath")
        /// A field name or field path is malformed.
        public static let invalidField = Code("invalidField")
        /// A value cannot be stored (too deep, too large, wrong type for a transform, bad JSON tag…).
        public static let invalidValue = Code("invalidValue")
        /// A query is malformed (bad operator, too many values, conflicting cursors…).
        public static let invalidQuery = Code("invalidQuery")
        /// The query needs a composite index that has not been declared.
        public static let missingIndex = Code("missingIndex")
        /// The document does not exist (e.g. `update` of a missing document).
        public static let notFound = Code("notFound")
        /// A write precondition (exists / version) did not hold; nothing was written.
        public static let preconditionFailed = Code("preconditionFailed")
        /// A transaction kept conflicting and gave up after its retries.
        public static let transactionAborted = Code("transactionAborted")
        /// A limit was exceeded (document size, batch size, nesting depth).
        public static let limitExceeded = Code("limitExceeded")
        /// The stored data could not be read back (corrupt body or file).
        public static let corrupted = Code("corrupted")
        /// The storage engine failed (I/O, SQLite error).
        public static let storage = Code("storage")
        /// The engine does not support the operation.
        public static let unsupported = Code("unsupported")
        /// The changes asked for are older than the change log's retained horizon (they were pruned): take a fresh
        /// snapshot — `DocumentEngine/lastSequence()`, then the documents followed — and follow the changes after it.
        /// Store listeners do so by themselves.
        public static let resyncRequired = Code("resyncRequired")
        /// A prepared commit was handed to an engine other than the one that prepared it.
        public static let wrongEngine = Code("wrongEngine")
        /// The server's rules refuse the write (a commit's review, as `suite serve` makes one).
        public static let permissionDenied = Code("permissionDenied")
        /// The store's query-rate limit (``QueryRateLimit``) had no token for a query that asked not to wait, or would
        /// have made it wait longer than ``QueryRateLimit/maximumWait``: the query did not run and cost nothing.
        public static let rateLimited = Code("rateLimited")

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
