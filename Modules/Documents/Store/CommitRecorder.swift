package import SuiteCore
import Synchronization

/// Something that sees every commit of a store as it is made — single writes, batches and transactions alike — and
/// may add writes of its own to the same atomic commit. The Sync module's replica is one: it records each commit in
/// its outbox, in that commit, so a crash keeps both or neither.
///
/// `record` gets the commit's writes in the JSON of a commit (`{"op": "set" | "update" | "delete", "path", "data",
/// "merge", "transforms", "precondition"}`, the format of ``DocumentStore/batch(json:)``; transforms stay transforms)
/// and returns extra writes in the same format (or none). It runs inside the commit: it must be quick, and it must
/// not touch the store. Bulk imports (``DocumentImporter``) are not recorded. Commits made inside
/// ``CommitRecording/withoutRecording(_:)`` are not recorded either (the recorder's own bookkeeping).
package protocol CommitRecorder: Sendable {
    /// The commit's writes; returns writes to add to it. Throwing fails the commit.
    func record(_ writes: [JSONValue]) throws -> [JSONValue]

    /// Whether writes the recorder holds for the document at `path` still wait for a confirmation (a replica's
    /// outbox): the store reports them as ``SnapshotMetadata/hasPendingWrites``. It must be quick. The default: none.
    func hasPendingWrites(at path: String) -> Bool
}

extension CommitRecorder {
    /// None: the recorder keeps nothing pending.
    package func hasPendingWrites(at path: String) -> Bool { false }
}

/// Turns recording off for the commits a task makes.
package enum CommitRecording {
    @TaskLocal static var isSuppressed = false

    /// Runs `body` with its commits unrecorded.
    package static func withoutRecording<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await $isSuppressed.withValue(true) { try await body() }
    }
}

extension DocumentStore {
    /// Sets (or removes, with nil) the store's recorder.
    package func setCommitRecorder(_ recorder: (any CommitRecorder)?) {
        state.withLock { $0.recorder = recorder }
    }

    /// `snapshots` with their metadata: ``SnapshotMetadata/hasPendingWrites`` where the recorder holds unconfirmed
    /// writes, ``SnapshotMetadata/isFromCache`` as the store's ``isFromCache`` is now (or as given).
    func marked(_ snapshots: [DocumentSnapshot], isFromCache: Bool? = nil) -> [DocumentSnapshot] {
        let recorder = state.withLock { $0.recorder }
        let isFromCache = isFromCache ?? source.isFromCache
        guard recorder != nil || isFromCache else { return snapshots }
        return snapshots.map { snapshot in
            var marked = snapshot
            marked.metadata.hasPendingWrites = recorder?.hasPendingWrites(at: snapshot.path.string) ?? false
            marked.metadata.isFromCache = isFromCache
            return marked
        }
    }

    /// `snapshot` with its documents marked, pending writes flagged when any of them has some, and
    /// ``SnapshotMetadata/isFromCache`` as the store's ``isFromCache`` is now.
    func marked(_ snapshot: QuerySnapshot) -> QuerySnapshot {
        let isFromCache = source.isFromCache
        guard state.withLock({ $0.recorder }) != nil || isFromCache else { return snapshot }
        var marked = snapshot
        marked.documents = self.marked(snapshot.documents, isFromCache: isFromCache)
        marked.metadata.hasPendingWrites = marked.documents.contains { $0.metadata.hasPendingWrites }
        marked.metadata.isFromCache = isFromCache
        return marked
    }

    /// The writes to commit: `writes`, plus what the recorder adds.
    func recorded(_ writes: [PendingWrite]) throws -> [PendingWrite] {
        guard !CommitRecording.isSuppressed, let recorder = state.withLock({ $0.recorder }) else { return writes }
        let extra = try recorder.record(writes.map(\.json))
        guard !extra.isEmpty else { return writes }
        return writes + (try batch(json: .array(extra)).pendingWrites())
    }
}

extension PendingWrite {
    /// The write in the JSON of a commit.
    var json: JSONValue {
        var object: [String: JSONValue] = ["path": .string(path.string)]
        switch operation {
        case .replace(let data):
            object["op"] = "set"
            object["data"] = DocumentJSON.json(from: data)
        case .set(let fields, let merge):
            object["op"] = "set"
            var transforms: [String: JSONValue] = [:]
            object["data"] = Self.split(fields, prefix: [], transforms: &transforms)
            if !transforms.isEmpty { object["transforms"] = .object(transforms) }
            switch merge {
            case .none: break
            case .all: object["merge"] = true
            case .fields(let paths): object["merge"] = .array(paths.map { .string($0.canonicalString) })
            }
        case .update(let list):
            object["op"] = "update"
            var data: [String: JSONValue] = [:]
            var transforms: [String: JSONValue] = [:]
            for (field, value) in list {
                if let transform = Self.transform(value) {
                    transforms[field.canonicalString] = transform
                } else if let plain = Self.plain(value) {
                    data[field.canonicalString] = DocumentJSON.json(from: plain)
                } else if case .map(let nested) = value.kind {
                    // A map holding transforms: its plain fields and its transforms at their own paths.
                    _ = Self.split(nested, prefix: field.segments, transforms: &transforms, flatInto: &data)
                }
            }
            if !data.isEmpty { object["data"] = .object(data) }
            if !transforms.isEmpty { object["transforms"] = .object(transforms) }
        case .delete:
            object["op"] = "delete"
        case .patch(let mask, let data, let transforms):
            // A set: replacing, or merging the mask (a masked field missing from the data is a delete).
            object["op"] = "set"
            var kept = data
            var json: [String: JSONValue] = [:]
            if let mask {
                kept = [:]
                for field in mask {
                    if let value = data.value(at: field) {
                        kept.setValue(value, at: field)
                    } else {
                        json[field.canonicalString] = "delete"
                    }
                }
                object["merge"] = .array((mask + transforms.map(\.0)).map { .string($0.canonicalString) })
            }
            object["data"] = DocumentJSON.json(from: kept)
            for (field, transform) in transforms {
                json[field.canonicalString] = Self.transform(FieldValue(kind: transform.kind)) ?? "delete"
            }
            if !json.isEmpty { object["transforms"] = .object(json) }
        }
        switch precondition {
        case .none: break
        case .exists(let flag): object["precondition"] = .object(["exists": .bool(flag)])
        case .version(let version): object["precondition"] = .object(["version": .int(version)])
        }
        return .object(object)
    }

    /// Plain fields as tagged JSON; transforms collected at their dotted paths.
    static func split(_ fields: [String: FieldValue], prefix: [String], transforms: inout [String: JSONValue])
        -> JSONValue
    {
        var data: [String: JSONValue] = [:]
        for (key, value) in fields {
            let path = prefix + [key]
            if let transform = transform(value) {
                transforms[dotted(path)] = transform
            } else if let plain = plain(value) {
                data[key] = DocumentJSON.json(from: plain)
            } else if case .map(let nested) = value.kind {
                data[key] = split(nested, prefix: path, transforms: &transforms)
            }
        }
        return .object(data)
    }

    /// The same, with plain fields at their dotted paths (for updates).
    static func split(
        _ fields: [String: FieldValue], prefix: [String], transforms: inout [String: JSONValue],
        flatInto data: inout [String: JSONValue]
    ) -> Bool {
        for (key, value) in fields {
            let path = prefix + [key]
            if let transform = transform(value) {
                transforms[dotted(path)] = transform
            } else if let plain = plain(value) {
                data[dotted(path)] = DocumentJSON.json(from: plain)
            } else if case .map(let nested) = value.kind {
                _ = split(nested, prefix: path, transforms: &transforms, flatInto: &data)
            }
        }
        return true
    }

    static func dotted(_ segments: [String]) -> String {
        (try? FieldPath(segments: segments).canonicalString) ?? segments.joined(separator: ".")
    }

    /// The value without transforms, or nil when it holds one.
    static func plain(_ value: FieldValue) -> DocumentValue? {
        switch value.kind {
        case .value(let plain): return plain
        case .map(let fields):
            var map: [String: DocumentValue] = [:]
            for (key, field) in fields {
                guard let plain = plain(field) else { return nil }
                map[key] = plain
            }
            return .map(map)
        case .array(let items):
            var list: [DocumentValue] = []
            for item in items {
                guard let plain = plain(item) else { return nil }
                list.append(plain)
            }
            return .array(list)
        default: return nil
        }
    }

    /// A transform in the JSON of a commit, or nil for a plain value or map.
    static func transform(_ value: FieldValue) -> JSONValue? {
        switch value.kind {
        case .incrementInt(let amount): .object(["increment": .int(amount)])
        case .incrementDouble(let amount): .object(["increment": .double(amount)])
        case .serverTimestamp: "serverTimestamp"
        case .arrayUnion(let values): .object(["arrayUnion": .array(values.map { DocumentJSON.json(from: $0) })])
        case .arrayRemove(let values): .object(["arrayRemove": .array(values.map { DocumentJSON.json(from: $0) })])
        case .maximum(let value): .object(["maximum": DocumentJSON.json(from: value)])
        case .minimum(let value): .object(["minimum": DocumentJSON.json(from: value)])
        case .delete: "delete"
        case .value, .map, .array: nil
        }
    }
}
