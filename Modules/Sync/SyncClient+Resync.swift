import Documents
import SuiteCore
import Synchronization

extension SyncClient {
    /// Reads again every document the server lets this replica read, when its change log no longer reaches the
    /// replica's checkpoint (the server pruned it: a replica offline for longer than the log's retention).
    ///
    /// The snapshot comes in pages (`GET /v1/sync/snapshot`); the first page's sequence becomes the checkpoint, so the
    /// feed then brings whatever changed while the pages were read. Locally, every document is set to the server's,
    /// documents the server no longer has (or no longer lets this replica read) are deleted, and the writes still in
    /// the outbox are re-applied on top, as after a pull. The acknowledgement records are dropped: a write of this
    /// replica overridden during the gap is not reported as a conflict. Commits go in chunks, the checkpoint with the
    /// last one, so a crash midway only means the next pull resyncs again. Returns the documents read.
    ///
    /// Called by ``pull(wait:)`` when the server answers `resyncRequired` (HTTP 410); the caller holds the gate.
    func resync() async throws -> Int {
        var server: [String: JSONValue?] = [:]
        var base: Int64?
        var after: String?
        repeat {
            let page = try await transport.snapshot(after: after, limit: 500)
            if base == nil { base = page.sequence }
            for document in page.documents { server[document.path] = .some(document.data) }
            if let next = page.next, next == after {
                throw SyncError(.protocolError, "a snapshot page did not move on")
            }
            after = page.next
        } while after != nil
        let read = server.count
        // What the replica has that the server did not send: gone on the server (or no longer readable).
        var replica = DocumentWalk(store: store, limit: .max, keep: { _, _ in true })
        try await local { try await replica.walk([[]], after: nil) }
        for snapshot in replica.kept where server[snapshot.path.string] == nil {
            server[snapshot.path.string] = .some(nil)
        }
        var writes = Self.rebased(server: server, pending: try await pendingMutations(limit: nil))
        writes += try await acknowledgementPaths().map { .object(["op": "delete", "path": .string($0)]) }
        let checkpoint = base ?? 0
        writes.append(
            .object([
                "op": "update", "path": .string(Self.statePath), "data": .object(["checkpoint": .int(checkpoint)]),
            ]))
        for start in stride(from: 0, to: writes.count, by: 450) {
            let chunk = Array(writes[start..<min(start + 450, writes.count)])
            _ = try await local {
                try await CommitRecording.withoutRecording { try await store.batch(json: .array(chunk)).commit() }
            }
        }
        shared.state.withLock { $0.checkpoint = checkpoint }
        events?.publish(SyncResyncEvent(payload: .init(documents: read, sequence: checkpoint)))
        return read
    }

    /// The replica's acknowledgement records (`_sync/state/acks/…`).
    private func acknowledgementPaths() async throws -> [String] {
        try await local {
            let acks = try CollectionPath(Self.statePath + "/acks")
            var paths: [String] = []
            var after: DocumentPath?
            while true {
                let page = try await store.listDocuments(in: acks, after: after, limit: 500)
                paths += page.map(\.path.string)
                guard page.count == 500 else { return paths }
                after = page.last?.path
            }
        }
    }
}
