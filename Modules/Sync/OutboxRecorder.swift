import Documents
import Foundation
import SuiteCore
import Synchronization

/// The replica's `Documents/CommitRecorder`: every commit of the store (but sync's own) becomes one mutation in the
/// outbox, written in that commit. Version preconditions and a transaction's reads are the replica's own (versions
/// differ between replicas), so they are checked locally and left out of the mutation: the server's order decides.
struct OutboxRecorder: CommitRecorder {
    let shared: SyncShared

    func record(_ writes: [JSONValue]) throws -> [JSONValue] {
        var mutation: [JSONValue] = []
        for write in writes {
            guard var object = write.objectValue, let path = object["path"]?.stringValue else { continue }
            if path.hasPrefix(SyncHost.reservedRoot + "/") { continue }
            if object["precondition"]?["version"] != nil { object["precondition"] = nil }
            mutation.append(.object(object))
        }
        guard !mutation.isEmpty else { return [] }
        let id = "m" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let order = shared.lastOrder.withLock { last in
            last = max(now, last + 1)
            return last
        }
        shared.state.withLock { $0.pending += 1 }
        shared.pendingPaths.withLock { counts in
            for path in Set(mutation.compactMap({ $0["path"]?.stringValue })) { counts[path, default: 0] += 1 }
        }
        return [
            .object([
                "op": "set", "path": .string("\(SyncClient.outboxPath)/\(id)"),
                "data": .object([
                    "id": .string(id), "order": .int(order), "writes": .string(JSONValue.array(mutation).jsonString),
                ]),
            ])
        ]
    }

    /// Whether the outbox holds writes to `path` (as of the last count; a failed commit is corrected at the next
    /// sync).
    func hasPendingWrites(at path: String) -> Bool {
        shared.pendingPaths.withLock { ($0[path] ?? 0) > 0 }
    }
}
