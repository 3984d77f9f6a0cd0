public import Documents
import Foundation
public import SuiteCore
import Synchronization

/// A local Documents store as an offline-first replica of `suite serve`.
///
/// ``write(_:)`` applies writes to the local store at once and, in the same local commit, records them in a persisted
/// outbox as one mutation with a unique id. ``push()`` sends the outbox (the server applies each mutation once, by id;
/// transforms stay transforms, so offline increments add up); ``pull(wait:)`` follows the server's change feed from a
/// persisted checkpoint and writes the server's documents locally, re-applying the writes still pending on top
/// (server-authoritative rebase). The outbox and the checkpoint live in the replica's own store (`_sync/state` and
/// its `outbox`), so both survive a crash with the data they describe.
///
/// ```swift
/// let replica = DocumentStore(engine: try SQLiteDocumentEngine(path: "replica.sqlite"), bus: bus)
/// let sync = try await SyncClient(
///     store: replica, transport: try HTTPSyncTransport(baseURL: "http://127.0.0.1:8080", token: token))
/// try await sync.write([["op": "update", "path": "users/ana", "transforms": ["points": ["increment": 1]]]])
/// try await sync.sync()   // push, then pull; offline: throws SyncError(.offline) and keeps the outbox
/// ```
public final class SyncClient: Sendable {
    /// The replica.
    public let store: DocumentStore
    /// How the server is reached.
    public let transport: any SyncTransport
    /// This replica's id, made once and kept in its store.
    public let clientID: String
    let events: EventPublisher?
    let gate = AsyncGate()
    let shared = SyncShared()
    /// Mutations pushed per request.
    public static let pushBatch = 400

    /// Sets (or removes, with nil) the hook that decides a conflict: a document this replica wrote that another
    /// replica's later write replaced. Without one the server's version stays; either way a `sync.conflict` event
    /// says what happened. Rejections by the server (rules, preconditions) are not offered: the server's refusal
    /// stands.
    public func setResolver(_ resolver: SyncResolver?) { shared.resolver.withLock { $0 = resolver } }

    /// Closes the replica's part: the store stops recording commits into the outbox. Its
    /// `Documents/DocumentStore/isFromCache` stays as it was: what the store holds is still a copy of the server's.
    public func detach() { store.setCommitRecorder(nil) }

    static let statePath = "_sync/state"
    static let outboxPath = "_sync/state/outbox"

    /// Opens the replica's sync state (creating its client id the first time). From then on the store reports
    /// `Documents/DocumentStore/isFromCache` `true` until a pull succeeds.
    public init(store: DocumentStore, transport: any SyncTransport) async throws {
        self.store = store
        self.transport = transport
        events = store.bus?.publisher(source: "sync")
        let reference = try store.document(Self.statePath)
        let snapshot = try await reference.getDocument()
        if let id = try snapshot.get("client", as: String.self) {
            clientID = id
        } else {
            let id = "c" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            try await CommitRecording.withoutRecording {
                try await reference.setData(["client": .string(id), "checkpoint": 0], merge: true)
            }
            clientID = id
        }
        store.setCommitRecorder(OutboxRecorder(shared: shared))
        // Nothing the replica holds is confirmed by the server until a pull succeeds (Firestore's `isFromCache`).
        store.setFromCache(true)
        let checkpoint = try snapshot.get("checkpoint", as: Int64.self) ?? 0
        let lastSync = try snapshot.get("lastSync", as: Timestamp.self)?.date
        let lastError = try snapshot.get("lastError", as: String.self)
        let offline = try snapshot.get("offline", as: Bool.self) ?? false
        try await refreshPending()
        shared.state.withLock {
            $0.checkpoint = checkpoint
            $0.lastSync = lastSync
            $0.lastError = lastError
            $0.offline = offline
        }
    }

    /// The replica's status as of the last operation.
    public var status: SyncStatus { shared.state.withLock { $0 } }

    // MARK: Local writes

    /// Applies `writes` (the JSON of a commit: `{"op": "set" | "update" | "delete" | "add", "path", "data",
    /// "merge", "transforms", "precondition"}`) to the replica at once; the replica's recorder queues them as one
    /// mutation in the same commit. Any other commit of the store (`store.document(…).setData(…)`, a batch, a
    /// transaction, Work tracking's changes) is queued the same way. Returns the documents as written locally.
    @discardableResult
    public func write(_ writes: [JSONValue]) async throws -> [DocumentSnapshot] {
        guard !writes.isEmpty else { throw SyncError(.invalidInput, "nothing to write") }
        for (index, write) in writes.enumerated() {
            guard let path = write["path"]?.stringValue else {
                throw SyncError(.invalidInput, "write #\(index + 1) needs an op and a path")
            }
            guard !path.hasPrefix(SyncHost.reservedRoot + "/") else {
                throw SyncError(.invalidInput, "\(path) is reserved for sync's own state")
            }
        }
        do {
            return try await local { try await store.batch(json: .array(writes)).commit() }
        } catch {
            // The recorder counted a mutation whose commit then failed: count the outbox again.
            try? await refreshPending()
            throw error
        }
    }

    /// Counts the outbox again, mutations and paths (the recorder's counts are estimates between syncs).
    func refreshPending() async throws {
        let pending = try await pendingMutations(limit: nil)
        var paths: [String: Int] = [:]
        for entry in pending {
            for path in Set(entry.mutation.writes.compactMap({ $0["path"]?.stringValue })) {
                paths[path, default: 0] += 1
            }
        }
        shared.state.withLock { $0.pending = pending.count }
        shared.pendingPaths.withLock { $0 = paths }
    }

    /// The paths the outbox still has writes for (the documents whose local state the server has not acknowledged).
    /// Snapshots of the replica's store carry the same in `Documents/SnapshotMetadata/hasPendingWrites`.
    public func pendingPaths() async throws -> Set<String> {
        Set(
            try await pendingMutations(limit: nil).flatMap { $0.mutation.writes.compactMap { $0["path"]?.stringValue } }
        )
    }

    /// Whether the document at `path` has writes the server has not acknowledged.
    public func hasPendingWrites(_ path: String) async throws -> Bool { try await pendingPaths().contains(path) }

    // MARK: Sync

    /// Pushes the whole outbox, then pulls every change; publishes `sync.status`. Offline, throws
    /// ``SyncError/Code/offline`` and keeps everything for the next attempt.
    @discardableResult
    public func sync(wait: Duration = .zero) async throws -> (pushed: Int, pulled: Int) {
        do {
            try await refreshPending()
            let pushed = try await push()
            let pulled = try await pull(wait: wait)
            shared.state.withLock {
                $0.lastSync = Date()
                $0.lastError = nil
                $0.offline = false
            }
            try? await persistStatus()
            publishStatus()
            return (pushed, pulled)
        } catch {
            shared.state.withLock {
                $0.lastError = (error as? any SuiteDescribedError)?.message ?? "\(error)"
                $0.offline = (error as? SyncError)?.code == .offline
            }
            try? await persistStatus()
            publishStatus()
            throw error
        }
    }

    /// Keeps the replica in step until the task is cancelled: pushes what is pending, then long-polls the server's
    /// feed (each request held up to `wait` until a change arrives), so listeners on the replica's store see other
    /// replicas' writes within moments. Offline, it retries with exponential backoff and jitter (1 s doubling to
    /// 30 s), telling `onOffline`; `onPull` gets the changes of each pull that moved the checkpoint. Other errors
    /// (a revoked token, a resync the server asks for) end it.
    ///
    /// The first pull, and the first after the server was unreachable, does not wait: it confirms the replica's data
    /// (`Documents/DocumentStore/isFromCache` becomes `false`) as soon as the server answers.
    public func follow(
        wait: Duration = .seconds(25), onPull: @Sendable (_ pulled: Int, _ checkpoint: Int64) -> Void = { _, _ in },
        onOffline: @Sendable (_ error: SyncError, _ retryIn: Duration) -> Void = { _, _ in }
    ) async throws {
        var delay = 1.0
        var confirmed = false
        while !Task.isCancelled {
            do {
                try await push()
                let before = status.checkpoint
                let pulled = try await pull(wait: confirmed ? wait : .zero)
                confirmed = true
                if pulled > 0 || status.checkpoint != before { onPull(pulled, status.checkpoint) }
                delay = 1
            } catch let error as SyncError where error.code == .offline {
                confirmed = false
                let pause = Duration.milliseconds(Int(delay * 1000 * Double.random(in: 0.8...1.2)))
                onOffline(error, pause)
                try await Task.sleep(for: pause)
                delay = min(delay * 2, 30)
            }
        }
    }

    /// Keeps the last sync's time and error in `_sync/state`, for `suite sync status` in a later process.
    func persistStatus() async throws {
        let current = status
        var fields: [String: FieldValue] = [
            "lastError": current.lastError.map { .value(.string($0)) } ?? .delete,
            "offline": .value(.bool(current.offline)),
        ]
        if let date = current.lastSync { fields["lastSync"] = .value(.timestamp(Timestamp(date))) }
        try await CommitRecording.withoutRecording {
            _ = try await store.document(Self.statePath).updateData(fields)
        }
    }

    func publishStatus() { events?.publish(SyncStatusEvent(payload: status)) }

    /// Runs store work, turning its errors into ``SyncError``.
    func local<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as SyncError { throw error } catch {
            throw SyncError(
                .storage, "the replica's store failed: \((error as? any SuiteDescribedError)?.message ?? "\(error)")",
                hint: (error as? any SuiteDescribedError)?.hint, underlying: error)
        }
    }
}

/// The state a replica shares with its store's recorder.
final class SyncShared: Sendable {
    let state = Mutex(SyncStatus(pending: 0, checkpoint: 0, lastSync: nil, lastError: nil, offline: false))
    let lastOrder = Mutex<Int64>(0)
    /// Outbox mutations per document path: what snapshots report as `hasPendingWrites`.
    let pendingPaths = Mutex<[String: Int]>([:])
    /// Decides conflicts; nil: the server's version stays.
    let resolver = Mutex<SyncResolver?>(nil)
}
