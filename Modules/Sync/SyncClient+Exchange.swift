import Documents
import Foundation
import SuiteCore
import Synchronization

extension SyncClient {
    /// Follows the change feed from the checkpoint: each page's documents are written locally with the writes still
    /// pending on them re-applied, and the new checkpoint, in one local commit. When the server's log no longer
    /// reaches the checkpoint, the replica resyncs first (`resync()`). Returns the changes (and documents) applied.
    ///
    /// A pull that reaches the end of the feed confirms the replica's data: the store's `isFromCache` becomes
    /// `false`; offline (``SyncError/Code/offline``), it becomes `true`.
    @discardableResult
    public func pull(wait: Duration = .zero) async throws -> Int {
        await gate.lock()
        defer { gate.unlock() }
        return try await reachingServer(confirms: true) { try await pullPages(wait: wait) }
    }

    /// Applies the feed's pages until the last one; the caller holds the gate.
    private func pullPages(wait: Duration) async throws -> Int {
        var pulled = 0
        var resynced = false
        while true {
            let checkpoint = status.checkpoint
            let page: SyncChangesResponse
            do {
                page = try await transport.changes(since: checkpoint, wait: pulled == 0 ? wait : .zero, limit: 200)
            } catch let error as SyncError where error.code == .resyncRequired && !resynced {
                // Once per pull: a second 410 right after a resync is the server's fault, reported as it is.
                resynced = true
                pulled += try await resync()
                continue
            }
            guard page.sequence > checkpoint || !page.changes.isEmpty else { break }
            var server: [String: JSONValue?] = [:]
            for change in page.changes { server[change.path] = .some(change.data) }
            let pending = try await pendingMutations(limit: nil)
            let overridden = try await overriddenWrites(page, pending: pending)
            var writes = Self.rebased(server: server, pending: pending)
            for conflict in overridden {
                for path in conflict.paths {
                    writes.append(.object(["op": "delete", "path": .string(Self.ackPath(path))]))
                }
            }
            writes.append(
                .object([
                    "op": "update", "path": .string(Self.statePath),
                    "data": .object(["checkpoint": .int(page.sequence)]),
                ]))
            _ = try await local {
                try await CommitRecording.withoutRecording { try await store.batch(json: .array(writes)).commit() }
            }
            shared.state.withLock { $0.checkpoint = page.sequence }
            for conflict in overridden { events?.publish(SyncConflictEvent(payload: try await resolve(conflict))) }
            pulled += page.changes.count
            if !page.more { break }
        }
        return pulled
    }

    /// This replica's acknowledged writes that someone else's later write replaced on the server: the document as
    /// the replica has it (ours) and as the server has it now (theirs). The replica keeps, per document, the server
    /// sequence of its last acknowledged write (`_sync/state/acks`), so this works across processes. Documents with
    /// writes still pending are left out (those writes go on top).
    func overriddenWrites(_ page: SyncChangesResponse, pending: [PendingMutation]) async throws
        -> [SyncConflictEvent.Payload]
    {
        let pendingPaths = Set(pending.flatMap { $0.mutation.writes.compactMap { $0["path"]?.stringValue } })
        var latest: [String: SyncChange] = [:]
        for change in page.changes { latest[change.path] = change }
        guard !latest.isEmpty else { return [] }
        let paths = latest.keys.sorted()
        let acks = try await local {
            try await store.getDocuments(try paths.map { try DocumentPath(Self.ackPath($0)) })
        }
        var conflicts: [SyncConflictEvent.Payload] = []
        for (path, ack) in zip(paths, acks) where ack.exists {
            guard let (sequence, mutation) = try Self.unpackAck(ack), let change = latest[path],
                change.sequence > sequence, !pendingPaths.contains(path)
            else { continue }
            let local = try await local { try await store.document(path).getDocument().data }
            let ours = local.map { DocumentJSON.json(from: $0) }
            guard ours != change.data else { continue }
            conflicts.append(
                .init(
                    mutation: mutation, paths: [path],
                    reason: "overridden by a later write on the server", ours: ours, theirs: change.data))
        }
        return conflicts
    }

    /// Asks the resolver (if any) how `conflict` ends and writes its choice locally (a new write, recorded in the
    /// outbox); returns the conflict with its resolution.
    func resolve(_ conflict: SyncConflictEvent.Payload) async throws -> SyncConflictEvent.Payload {
        guard let resolver = shared.resolver.withLock({ $0 }), let path = conflict.paths.first else { return conflict }
        var resolved = conflict
        let document: JSONValue?
        switch await resolver(conflict) {
        case .acceptServer: return conflict
        case .keepLocal:
            document = conflict.ours
            resolved.resolution = "local"
        case .replace(let replacement):
            document = replacement
            resolved.resolution = "replaced"
        }
        let write: JSONValue =
            if let document {
                .object(["op": "set", "path": .string(path), "data": document])
            } else {
                .object(["op": "delete", "path": .string(path)])
            }
        _ = try await local { try await store.batch(json: .array([write])).commit() }
        return resolved
    }

    /// An acknowledgement's one field: `"<sequence> <mutation id>"`. One field, so one index entry instead of three
    /// (every field is indexed, and a push writes an acknowledgement per document).
    static func packAck(_ sequence: Int64, _ mutation: String) -> String { "\(sequence) \(mutation)" }

    /// The sequence and mutation id of an acknowledgement (also in the three-field form of earlier versions).
    static func unpackAck(_ ack: DocumentSnapshot) throws -> (Int64, String)? {
        if let packed = try ack.get("ack", as: String.self) {
            let parts = packed.split(separator: " ", maxSplits: 1)
            guard let sequence = parts.first.flatMap({ Int64($0) }) else { return nil }
            return (sequence, parts.count > 1 ? String(parts[1]) : "")
        }
        guard let sequence = try ack.get("sequence", as: Int64.self) else { return nil }
        return (sequence, try ack.get("mutation", as: String.self) ?? "")
    }

    /// Where the replica keeps the server sequence of its last acknowledged write to `path`.
    /// The id is the path in unpadded base64url (`+` → `-`, `/` → `_`, no `=`); mapped byte by byte, since
    /// Foundation's `replacingOccurrences` cost 6 % of a push.
    static func ackPath(_ path: String) -> String {
        var id: [UInt8] = []
        for byte in Data(path.utf8).base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): id.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): id.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: id.append(byte)
            }
        }
        return "\(statePath)/acks/" + String(decoding: id, as: UTF8.self)
    }

    /// The server's documents (`nil`: deleted), then the pending writes on those paths again, in order, without their
    /// preconditions (the server checks them); an update of a document that does not exist then is left out (the
    /// server will reject it, and the rejection restores the document).
    static func rebased(server: [String: JSONValue?], pending: [PendingMutation]) -> [JSONValue] {
        var writes: [JSONValue] = []
        var exists: [String: Bool] = [:]
        for (path, data) in server.sorted(by: { $0.key < $1.key }) {
            if let data {
                writes.append(.object(["op": "set", "path": .string(path), "data": data]))
            } else {
                writes.append(.object(["op": "delete", "path": .string(path)]))
            }
            exists[path] = data != nil
        }
        for entry in pending {
            for write in entry.mutation.writes {
                guard var object = write.objectValue, let path = object["path"]?.stringValue, let known = exists[path]
                else { continue }
                let op = object["op"]?.stringValue ?? ""
                if op == "update", !known { continue }
                object["precondition"] = nil
                writes.append(.object(object))
                exists[path] = op != "delete"
            }
        }
        return writes
    }
}
