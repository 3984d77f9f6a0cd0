import Documents
import Foundation
import SuiteCore
import Synchronization

/// A mutation in the outbox: its document there and what it writes.
struct PendingMutation: Sendable {
    var outboxPath: String
    var mutation: SyncMutation
    /// Its outbox document as read: where the next page of the outbox starts.
    var snapshot: DocumentSnapshot
}

extension SyncClient {
    /// The outbox in order (the oldest first), or the part of it after `after`.
    func pendingMutations(limit: Int?, after: PendingMutation? = nil) async throws -> [PendingMutation] {
        try await local {
            var query = try store.collection(Self.outboxPath).query.order(by: "order")
            if let after { query = query.start(afterDocument: after.snapshot) }
            if let limit { query = query.limit(limit) }
            return try await query.getDocuments().documents.map { snapshot in
                guard let id = try snapshot.get("id", as: String.self),
                    let text = try snapshot.get("writes", as: String.self),
                    let writes = try JSONValue(parsing: text).arrayValue
                else {
                    throw SyncError(
                        .storage, "\(snapshot.path) is not an outbox entry", hint: "delete it with suite docs")
                }
                return PendingMutation(
                    outboxPath: snapshot.path.string, mutation: SyncMutation(id: id, writes: writes),
                    snapshot: snapshot)
            }
        }
    }

    /// Sends the outbox until it is empty. Applied and duplicate mutations leave the outbox; a rejected one leaves it
    /// too, its documents are set back to the server's version (with the writes still pending re-applied) and a
    /// `sync.conflict` event says why. Returns the mutations the server acknowledged.
    ///
    /// One request is in flight at a time, in outbox order. While the replica commits what the server answered for a
    /// batch (outbox deletions, acknowledgements), the next batch is already on its way: the server's work and the
    /// replica's overlap. A batch with a rejected mutation is settled before anything else is sent, since restoring
    /// its documents re-applies the writes still pending, which must not have reached the server yet.
    ///
    /// Offline (``SyncError/Code/offline``), the store's `Documents/DocumentStore/isFromCache` becomes `true`; a
    /// push that succeeds leaves it as it was (only a pull confirms the replica's data).
    @discardableResult
    public func push() async throws -> Int {
        await gate.lock()
        defer { gate.unlock() }
        return try await reachingServer(confirms: false) { try await pushOutbox() }
    }

    /// Sends the outbox until it is empty; the caller holds the gate.
    private func pushOutbox() async throws -> Int {
        var acknowledged = 0
        var batch = try await pendingMutations(limit: Self.pushBatch)
        var response = batch.isEmpty ? nil : try await send(batch)
        while let answer = response {
            let clean = !answer.results.contains { $0.status == .rejected }
            let next = clean ? try await pendingMutations(limit: Self.pushBatch, after: batch.last) : []
            async let nextAnswer = next.isEmpty ? nil : send(next)
            acknowledged += try await settle(batch, answer)
            if let following = try await nextAnswer {
                (batch, response) = (next, following)
                continue
            }
            // Nothing in flight: start again from the oldest entry (writes made meanwhile, or after a rejection).
            batch = try await pendingMutations(limit: Self.pushBatch)
            response = batch.isEmpty ? nil : try await send(batch)
        }
        try await refreshPending()
        return acknowledged
    }

    /// Pushes one batch; the answer must name the same mutations in the same order.
    private func send(_ batch: [PendingMutation]) async throws -> SyncPushResponse {
        let response = try await transport.push(SyncPushRequest(client: clientID, mutations: batch.map(\.mutation)))
        guard response.results.map(\.id) == batch.map(\.mutation.id) else {
            throw SyncError(.protocolError, "the server answered a push with other mutations than were sent")
        }
        return response
    }

    /// Commits what the server answered for `batch`: its outbox entries deleted, an acknowledgement per document
    /// written, the documents of rejected mutations restored. Returns the mutations acknowledged.
    private func settle(_ batch: [PendingMutation], _ response: SyncPushResponse) async throws -> Int {
        var acknowledged = 0
        var writes: [JSONValue] = batch.map { .object(["op": "delete", "path": .string($0.outboxPath)]) }
        var conflicts: [SyncConflictEvent.Payload] = []
        var restore: Set<String> = []
        for (entry, result) in zip(batch, response.results) {
            if result.status == .rejected {
                let paths = entry.mutation.writes.compactMap { $0["path"]?.stringValue }
                restore.formUnion(paths)
                conflicts.append(.init(mutation: entry.mutation.id, paths: paths, reason: result.message ?? "rejected"))
                continue
            }
            acknowledged += 1
            guard let sequence = result.sequence else { continue }
            for path in Set(entry.mutation.writes.compactMap({ $0["path"]?.stringValue })) {
                writes.append(
                    .object([
                        "op": "set", "path": .string(Self.ackPath(path)),
                        "data": .object(["ack": .string(Self.packAck(sequence, entry.mutation.id))]),
                    ]))
            }
        }
        if !restore.isEmpty {
            var server: [String: JSONValue?] = [:]
            for path in restore.sorted() { server[path] = .some(try await transport.document(path)) }
            let sent = Set(batch.map(\.outboxPath))
            let remaining = try await pendingMutations(limit: nil).filter { !sent.contains($0.outboxPath) }
            writes += Self.rebased(server: server, pending: remaining)
        }
        // Outbox deletions, acknowledgements and restores, in commits within the batch limit: each write is
        // idempotent, so a crash between two of them only means a retried push the server answers `duplicate`.
        for start in stride(from: 0, to: writes.count, by: 450) {
            let chunk = Array(writes[start..<min(start + 450, writes.count)])
            _ = try await local {
                try await CommitRecording.withoutRecording { try await store.batch(json: .array(chunk)).commit() }
            }
        }
        shared.state.withLock { $0.pending = max(0, $0.pending - batch.count) }
        for conflict in conflicts { events?.publish(SyncConflictEvent(payload: conflict)) }
        return acknowledged
    }
}
