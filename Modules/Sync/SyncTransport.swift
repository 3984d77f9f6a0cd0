import Documents
public import SuiteCore
import Synchronization

/// How a replica reaches the server: push mutations, read the change feed, read one document. Built in:
/// ``HTTPSyncTransport`` (to `suite serve`) and ``InProcessSyncTransport`` (a ``SyncHost`` in the same process, for
/// tests, with an off switch).
public protocol SyncTransport: Sendable {
    /// Sends mutations; throws ``SyncError/Code/offline`` when the server cannot be reached.
    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse
    /// The changes after `since` (about `limit` records at most), waiting up to `wait` for one.
    func changes(since: Int64, wait: Duration, limit: Int) async throws -> SyncChangesResponse
    /// One document's data as the server has it (tagged JSON); nil when it does not exist or the caller may not read it.
    func document(_ path: String) async throws -> JSONValue?
    /// A page of every document the caller may read, after the document `after` (nil: from the start): what a replica
    /// reads again when the change log no longer reaches its checkpoint.
    func snapshot(after: String?, limit: Int) async throws -> SyncSnapshotResponse
}

/// A ``SyncHost`` in the same process: what tests use to take a replica offline and back.
public final class InProcessSyncTransport: SyncTransport {
    /// The server side.
    public let host: SyncHost
    private let online = Atomic<Bool>(true)

    /// Creates a transport to `host`.
    public init(host: SyncHost) { self.host = host }

    /// Whether the server is reachable; while false, every call throws ``SyncError/Code/offline``.
    public var isOnline: Bool {
        get { online.load(ordering: .relaxed) }
        set { online.store(newValue, ordering: .relaxed) }
    }

    private func check() throws {
        guard isOnline else { throw SyncError(.offline, "the server is unreachable (in-process transport is offline)") }
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try check()
        return try await host.push(request) { _ in }
    }

    public func changes(since: Int64, wait: Duration, limit: Int) async throws -> SyncChangesResponse {
        try check()
        return try await host.changes(since: since, limit: limit, wait: wait) { _ in true }
    }

    public func snapshot(after: String?, limit: Int) async throws -> SyncSnapshotResponse {
        try check()
        return try await host.snapshot(roots: [[]], after: after, limit: limit) { _ in true }
    }

    public func document(_ path: String) async throws -> JSONValue? {
        try check()
        let snapshot = try await host.store.document(path).getDocument()
        // No document is `Optional.none` (a bare `nil` there would become `JSONValue.null`, a literal of its own).
        guard let data = snapshot.json["data"], data != .null else { return Optional.none }
        return data
    }
}
