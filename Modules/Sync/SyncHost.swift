public import Documents
import Foundation
public import SuiteCore

/// The server's side of sync, on the store that owns the truth: pushes applied once per mutation id, and a change
/// feed since a checkpoint. `suite serve` puts it behind HTTP with its rules; tests call it in process.
///
/// A mutation's writes and a marker `_sync/{client}/applied/{mutation id}` (precondition: it does not exist) commit
/// together, so a retried push — after a lost answer, a crash, a restart — finds the marker and is reported
/// `duplicate` without applying anything twice.
public final class SyncHost: Sendable {
    /// The store.
    public let store: DocumentStore
    /// The collection root of the markers; clients never read or write it (its changes are not in the feed).
    public static let reservedRoot = "_sync"

    /// Creates the host over `store`.
    public init(store: DocumentStore) { self.store = store }

    /// Applies each mutation in order. `authorize` throws for a path the caller may not write; the mutation is then
    /// rejected (nothing of it applied) and the next ones go on. Throws only when the store cannot be used.
    public func push(
        _ request: SyncPushRequest, authorize: (String) throws -> Void
    ) async throws -> SyncPushResponse {
        guard SyncIdentifier.isValid(request.client) else {
            throw SyncError(
                .invalidInput, "'\(request.client)' is not a client id", hint: "letters, digits, - and _ (≤ 128)")
        }
        var results: [SyncPushResponse.Result] = []
        for mutation in request.mutations {
            results.append(try await apply(mutation, client: request.client, authorize: authorize))
        }
        return SyncPushResponse(results: results)
    }

    private func apply(
        _ mutation: SyncMutation, client: String, authorize: (String) throws -> Void
    ) async throws -> SyncPushResponse.Result {
        func rejected(_ message: String) -> SyncPushResponse.Result {
            SyncPushResponse.Result(id: mutation.id, status: .rejected, message: message)
        }
        guard SyncIdentifier.isValid(mutation.id) else { return rejected("'\(mutation.id)' is not a mutation id") }
        guard !mutation.writes.isEmpty else { return rejected("a mutation needs at least one write") }
        for write in mutation.writes {
            guard let path = write["path"]?.stringValue else { return rejected("a write has no path") }
            guard write["op"]?.stringValue != "add" else {
                return rejected("sync writes name their document: use set with an id instead of add")
            }
            guard !path.hasPrefix(Self.reservedRoot + "/") else { return rejected("\(path) is reserved") }
            do { try authorize(path) } catch {
                return rejected((error as? any SuiteDescribedError)?.message ?? "\(error)")
            }
        }
        let marker = "\(Self.reservedRoot)/\(client)/applied/\(mutation.id)"
        let markerWrite: JSONValue = .object([
            "op": "set", "path": .string(marker), "data": .object(["client": .string(client)]),
            "precondition": .object(["exists": false]),
        ])
        do {
            let snapshots = try await store.batch(json: .array(mutation.writes + [markerWrite])).commit()
            return SyncPushResponse.Result(id: mutation.id, status: .applied, sequence: snapshots.last?.version)
        } catch let error as DocumentsError where error.code == .preconditionFailed || error.code == .notFound {
            let existing = try await store.document(marker).getDocument()
            if existing.exists {
                return SyncPushResponse.Result(id: mutation.id, status: .duplicate, sequence: existing.version)
            }
            return rejected(error.message)
        } catch let error as DocumentsError
            where [.invalidPath, .invalidField, .invalidValue, .limitExceeded].contains(error.code)
        {
            return rejected(error.message)
        }
    }

    /// The changes after `since` that `canRead` lets through, at most about `limit` records (a commit is never split),
    /// waiting up to `wait` for one when there is none yet. Throws ``SyncError/Code/resyncRequired`` when the change log
    /// no longer reaches back to `since`.
    public func changes(
        since: Int64, limit: Int = 500, wait: Duration = .zero, canRead: (String) -> Bool
    ) async throws -> SyncChangesResponse {
        let deadline = ContinuousClock.now.advanced(by: min(wait, .seconds(30)))
        var records = try await read(since: since, limit: limit)
        while records.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            if try await store.lastSequence() > since { records = try await read(since: since, limit: limit) }
        }
        var more = false
        if records.count > limit, let last = records.last?.sequence {
            more = true
            let kept = records.dropLast().filter { $0.sequence != last }
            // A single commit larger than the page is sent whole.
            records = kept.isEmpty ? records.filter { $0.sequence == records.first?.sequence } : Array(kept)
        }
        var changes: [SyncChange] = []
        for record in records where !record.path.hasPrefix(Self.reservedRoot + "/") && canRead(record.path) {
            let data = try record.document.map { DocumentJSON.json(from: try ValueCodec.decode($0.body)) }
            changes.append(SyncChange(sequence: record.sequence, path: record.path, data: data))
        }
        return SyncChangesResponse(changes: changes, sequence: records.last?.sequence ?? since, more: more)
    }

    private func read(since: Int64, limit: Int) async throws -> [ChangeRecord] {
        do { return try await store.engine.changes(after: since, limit: limit + 1) } catch let error as DocumentsError
            where error.code == .resyncRequired
        {
            throw SyncError(
                .resyncRequired, "the server's change log no longer reaches back to sequence \(since)",
                hint: "start the replica over (a fresh data directory) to read everything again", underlying: error)
        }
    }
}
