import Foundation
public import SuiteCore

/// The Sync module's error: a code to match on, a message and a hint.
public struct SyncError: SuiteDescribedError {
    /// A stable, extensible error code. Adding a code never breaks a caller's `switch`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The server cannot be reached (offline, refused, timed out): the outbox keeps the writes.
        public static let offline = Code("offline")
        /// The server refused the token (401) or the request (403).
        public static let unauthorized = Code("unauthorized")
        /// The server answered something that is not the sync protocol.
        public static let protocolError = Code("protocolError")
        /// The change log no longer reaches back to this replica's checkpoint: a full resync is needed.
        public static let resyncRequired = Code("resyncRequired")
        /// A write or an id is malformed.
        public static let invalidInput = Code("invalidInput")
        /// The local store failed.
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
