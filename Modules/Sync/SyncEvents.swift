public import Foundation
public import SuiteCore

/// `sync.status`: after every sync attempt — what is pending, when the last sync succeeded, the last error.
public struct SyncStatusEvent: BusEvent {
    public var name: String { "sync.status" }
    public var payload: SyncStatus

    /// Creates the event.
    public init(payload: SyncStatus) { self.payload = payload }
}

/// Where a replica stands.
public struct SyncStatus: Sendable, Hashable, Codable {
    /// Mutations in the outbox, not yet acknowledged by the server.
    public var pending: Int
    /// The server's sequence this replica has pulled through.
    public var checkpoint: Int64
    /// When a sync last succeeded.
    public var lastSync: Date?
    /// The last failure's message, nil after a success.
    public var lastError: String?
    /// Whether the last attempt could not reach the server.
    public var offline: Bool
}

/// `sync.conflict`: a local write was overridden — the server rejected the mutation (a rule, a failed precondition,
/// a bad value), or another replica's later write replaced it — so the replica now holds the server's version.
public struct SyncConflictEvent: BusEvent {
    public var name: String { "sync.conflict" }
    public var payload: Payload

    /// What was overridden.
    public struct Payload: Codable, Sendable, Hashable {
        /// The mutation's id.
        public var mutation: String
        /// The documents it wrote.
        public var paths: [String]
        /// Why it was overridden: the server's reason for a rejection, or a later write.
        public var reason: String
        /// For a later write: the document as this replica had written it (tagged JSON; nil: deleted).
        public var ours: JSONValue?
        /// For a later write: the document as the server has it now.
        public var theirs: JSONValue?
        /// How it ended: `server` (the server's version stays, the default), `local` (this replica's version was
        /// written again) or `replaced` (the resolver's document was written); a new local write goes to the server
        /// at the next sync.
        public var resolution: String

        /// Creates a payload.
        public init(
            mutation: String, paths: [String], reason: String, ours: JSONValue? = nil, theirs: JSONValue? = nil,
            resolution: String = "server"
        ) {
            self.mutation = mutation
            self.paths = paths
            self.reason = reason
            self.ours = ours
            self.theirs = theirs
            self.resolution = resolution
        }
    }

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}

/// `sync.resync`: the server's change log no longer reached the replica's checkpoint (it was offline for longer than
/// the log is kept), so the replica read again every document it may read and goes on from `sequence`.
public struct SyncResyncEvent: BusEvent {
    public var name: String { "sync.resync" }
    public var payload: Payload

    /// What the resync read.
    public struct Payload: Codable, Sendable, Hashable {
        /// The documents the server sent.
        public var documents: Int
        /// The checkpoint the replica goes on from.
        public var sequence: Int64

        /// Creates a payload.
        public init(documents: Int, sequence: Int64) {
            self.documents = documents
            self.sequence = sequence
        }
    }

    /// Creates the event.
    public init(payload: Payload) { self.payload = payload }
}

/// What a ``SyncResolver`` decides for a document another replica's later write replaced.
public enum SyncResolution: Sendable, Hashable {
    /// The server's version stays (what happens without a resolver).
    case acceptServer
    /// This replica's version is written again, as a new local write that the next sync sends.
    case keepLocal
    /// This document (tagged JSON, as in the conflict; `nil` deletes it) is written as a new local write.
    case replace(JSONValue?)
}

/// Decides a conflict: given the ``SyncConflictEvent/Payload`` (with `ours` and `theirs`), how it ends. It runs
/// during a pull, after the server's version is in the replica; it must not sync.
///
/// ```swift
/// sync.setResolver { conflict in
///     // A draft this replica wrote wins; otherwise the server's version stays.
///     conflict.ours?["draft"] == true ? .keepLocal : .acceptServer
/// }
/// ```
public typealias SyncResolver = @Sendable (SyncConflictEvent.Payload) async -> SyncResolution
