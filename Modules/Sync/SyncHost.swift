@_spi(Engine) public import Documents
import Foundation
import SuiteCore

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
        try await push(request, authorize: authorize, review: nil)
    }

    /// ``push(_:authorize:)`` with `review` judging each commit's resolved writes (the server's rules on the data); a
    /// mutation it refuses is rejected with its reason.
    package func push(
        _ request: SyncPushRequest, authorize: (String) throws -> Void, review: CommitReview?
    ) async throws -> SyncPushResponse {
        guard SyncIdentifier.isValid(request.client) else {
            throw SyncError(
                .invalidInput, "'\(request.client)' is not a client id", hint: "letters, digits, - and _ (≤ 128)")
        }
        // Mutations that pass the checks are committed together, as many as fit in one commit; a group that fails
        // (a duplicate, a failed precondition, a bad value) is retried one mutation at a time, so each mutation is
        // still all or nothing on its own.
        var results = [SyncPushResponse.Result?](repeating: nil, count: request.mutations.count)
        var group: [Int] = []
        var groupWrites = 0
        func flush() async throws {
            guard !group.isEmpty else { return }
            defer {
                group = []
                groupWrites = 0
            }
            let writes = group.flatMap { index in
                request.mutations[index].writes + [marker(request.client, request.mutations[index].id)]
            }
            do {
                let sequence = try await store.batch(json: .array(writes)).commit(review: review).last?.version
                for index in group {
                    results[index] = .init(id: request.mutations[index].id, status: .applied, sequence: sequence)
                }
            } catch let error as DocumentsError where Self.isMutationFailure(error) {
                for index in group {
                    results[index] = try await apply(request.mutations[index], client: request.client, review: review)
                }
            }
        }
        for (index, mutation) in request.mutations.enumerated() {
            if let reason = check(mutation, authorize: authorize) {
                results[index] = .init(id: mutation.id, status: .rejected, message: reason)
                continue
            }
            if groupWrites + mutation.writes.count + 1 > 400 { try await flush() }
            group.append(index)
            groupWrites += mutation.writes.count + 1
        }
        try await flush()
        return SyncPushResponse(
            results: results.enumerated().map { index, result in
                result ?? .init(id: request.mutations[index].id, status: .rejected, message: "not applied")
            })
    }

    static func isMutationFailure(_ error: DocumentsError) -> Bool {
        [.preconditionFailed, .notFound, .invalidPath, .invalidField, .invalidValue, .limitExceeded, .permissionDenied]
            .contains(
                error.code)
    }

    func marker(_ client: String, _ id: String) -> JSONValue {
        .object([
            "op": "set", "path": .string("\(Self.reservedRoot)/\(client)/applied/\(id)"),
            // Empty: only its existence counts, and a field would cost an index entry per mutation.
            "data": .object([:]), "precondition": .object(["exists": false]),
        ])
    }

    /// Why a mutation is refused before any commit, or nil.
    private func check(_ mutation: SyncMutation, authorize: (String) throws -> Void) -> String? {
        guard SyncIdentifier.isValid(mutation.id) else { return "'\(mutation.id)' is not a mutation id" }
        guard !mutation.writes.isEmpty else { return "a mutation needs at least one write" }
        for write in mutation.writes {
            guard let path = write["path"]?.stringValue else { return "a write has no path" }
            guard write["op"]?.stringValue != "add" else {
                return "sync writes name their document: use set with an id instead of add"
            }
            guard !path.hasPrefix(Self.reservedRoot + "/") else { return "\(path) is reserved" }
            do { try authorize(path) } catch {
                return (error as? any SuiteDescribedError)?.message ?? "\(error)"
            }
        }
        return nil
    }

    /// One mutation alone: applied, a duplicate (its marker exists), or rejected with the store's reason.
    private func apply(_ mutation: SyncMutation, client: String, review: CommitReview?) async throws
        -> SyncPushResponse.Result
    {
        let marker = "\(Self.reservedRoot)/\(client)/applied/\(mutation.id)"
        do {
            let snapshots = try await store.batch(json: .array(mutation.writes + [self.marker(client, mutation.id)]))
                .commit(review: review)
            return SyncPushResponse.Result(id: mutation.id, status: .applied, sequence: snapshots.last?.version)
        } catch let error as DocumentsError where Self.isMutationFailure(error) {
            let existing = try await store.document(marker).getDocument()
            if existing.exists {
                return SyncPushResponse.Result(id: mutation.id, status: .duplicate, sequence: existing.version)
            }
            return SyncPushResponse.Result(id: mutation.id, status: .rejected, message: error.message)
        }
    }

    /// The changes after `since` that `canRead` lets through, at most about `limit` records (a commit is never split),
    /// waiting up to `wait` for one when there is none yet. Throws ``SyncError/Code/resyncRequired`` when the change log
    /// no longer reaches back to `since`.
    public func changes(
        since: Int64, limit: Int = 500, wait: Duration = .zero, canRead: (String) -> Bool
    ) async throws -> SyncChangesResponse {
        try await changes(since: since, limit: limit, wait: wait, canReadDocument: { path, _ in canRead(path) })
    }

    /// ``changes(since:limit:wait:canRead:)`` with a filter that also sees each document's data (nil when the change
    /// deletes it), for rules that judge the data.
    public func changes(
        since: Int64, limit: Int = 500, wait: Duration = .zero,
        canReadDocument: (String, DocumentData?) async -> Bool
    ) async throws -> SyncChangesResponse {
        let deadline = ContinuousClock.now.advanced(by: min(wait, .seconds(30)))
        var records = try await read(since: since, limit: limit)
        while records.isEmpty, ContinuousClock.now < deadline {
            // Polls every 50 ms, or wakes at once where the engine is told of commits (PostgreSQL's NOTIFY).
            await store.engine.waitForChanges(after: since, timeout: min(.milliseconds(50), deadline - .now))
            try Task.checkCancellation()
            if try await store.lastSequence() > since { records = try await read(since: since, limit: limit) }
        }
        var more = false
        if records.count > limit, let last = records.last?.sequence {
            more = true
            let kept = records.dropLast().filter { $0.sequence != last }
            if kept.isEmpty {
                // A single commit larger than the page is sent whole.
                (records, more) = try await wholeCommit(since: since, startingWith: records)
            } else {
                records = Array(kept)
            }
        }
        var changes: [SyncChange] = []
        for record in records where !record.path.hasPrefix(Self.reservedRoot + "/") {
            let document = try record.document.map { try ValueCodec.decode($0.body) }
            guard await canReadDocument(record.path, document) else { continue }
            changes.append(
                SyncChange(sequence: record.sequence, path: record.path, data: document.map(DocumentJSON.json(from:))))
        }
        return SyncChangesResponse(changes: changes, sequence: records.last?.sequence ?? since, more: more)
    }

    /// A page of the documents below `roots` (path segments; `[]`: the whole store) that `canRead` lets through, after
    /// the document `after` from an earlier page, at most `limit`: a replica's resync (`DocumentWalk` gives the
    /// order). Only the collections below the roots are walked, so a user's resync reads that user's part of the store.
    ///
    /// - Throws: ``SyncError`` `.invalidInput` for an `after` that is not a document path or a limit below 1.
    public func snapshot(
        roots: [[String]], after: String?, limit: Int, canRead: @escaping (String) -> Bool
    ) async throws -> SyncSnapshotResponse {
        try await snapshot(roots: roots, after: after, limit: limit, canReadDocument: { path, _ in canRead(path) })
    }

    /// ``snapshot(roots:after:limit:canRead:)`` with a filter that also sees each document's data, for rules that
    /// judge the data.
    public func snapshot(
        roots: [[String]], after: String?, limit: Int,
        canReadDocument: @escaping (String, DocumentData?) async -> Bool
    ) async throws -> SyncSnapshotResponse {
        guard limit > 0 else { throw SyncError(.invalidInput, "a snapshot page needs a limit above 0, not \(limit)") }
        let start: DocumentPath?
        do { start = try after.map { try DocumentPath($0) } } catch {
            throw SyncError(
                .invalidInput, "'\(after ?? "")' is not a document path",
                hint: "pass the next value of the previous page as after")
        }
        let sequence = try await store.lastSequence()
        var walk = DocumentWalk(store: store, limit: limit, keep: canReadDocument)
        try await walk.walk(DocumentWalk.normalized(roots), after: start)
        let documents = walk.kept.compactMap { snapshot in
            snapshot.data.map {
                SyncSnapshotResponse.Document(path: snapshot.path.string, data: DocumentJSON.json(from: $0))
            }
        }
        return SyncSnapshotResponse(
            documents: documents, sequence: sequence, next: walk.isFull ? walk.last?.string : nil)
    }

    /// Every record of the commit `records` begins with (a read that held nothing else), and whether more follow:
    /// reads on, four times as many at a time, until a record of a later commit or the log's end shows.
    private func wholeCommit(since: Int64, startingWith records: [ChangeRecord]) async throws
        -> (records: [ChangeRecord], more: Bool)
    {
        guard let first = records.first?.sequence else { return (records, false) }
        var records = records
        var asked = records.count
        while records.count == asked, records.last?.sequence == first {
            asked *= 4
            records = try await read(since: since, limit: asked - 1)
        }
        let commit = records.filter { $0.sequence == first }
        return (commit, records.count > commit.count)
    }

    private func read(since: Int64, limit: Int) async throws -> [ChangeRecord] {
        do { return try await store.engine.changes(after: since, limit: limit + 1) } catch let error as DocumentsError
            where error.code == .resyncRequired
        {
            throw SyncError(
                .resyncRequired, "the server's change log no longer reaches back to sequence \(since)",
                hint:
                    "read everything again with snapshot(roots:after:limit:canRead:), then follow the feed from its sequence",
                underlying: error)
        }
    }
}
