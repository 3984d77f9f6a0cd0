import Foundation
import SuiteCore
import Synchronization

/// How a set treats existing fields.
package enum MergeOption: Sendable, Hashable {
    /// Replace the document.
    case none
    /// Merge every given field (deeply into maps).
    case all
    /// Merge only the listed field paths.
    case fields([FieldPath])
}

/// One write before it is resolved against the current document.
package struct PendingWrite: Sendable {
    package enum Operation: Sendable {
        case set([String: FieldValue], MergeOption)
        /// A plain replacing set (no transforms).
        case replace(DocumentData)
        case update([(FieldPath, FieldValue)])
        case delete
        /// Firestore's write as its protocol states it: without a mask the document becomes `data`; with one, each
        /// masked path takes its value in `data` or is removed when `data` has none there (a mask may name a map
        /// while a transform targets a field inside it). Then the transforms apply, in order, with Firestore's
        /// rules for a field of another type (an increment or `maximum` of a non-number sets the operand; an array
        /// transform of a non-array starts from an empty array).
        case patch(mask: [FieldPath]?, data: DocumentData, transforms: [(FieldPath, FieldTransform)])
    }

    package var path: DocumentPath
    package var operation: Operation
    package var precondition: WritePrecondition
    /// Firestore's `update_time` precondition: the document must exist with exactly this update time.
    package var updateTime: Timestamp?

    package init(
        path: DocumentPath, operation: Operation, precondition: WritePrecondition, updateTime: Timestamp? = nil
    ) {
        self.path = path
        self.operation = operation
        self.precondition = precondition
        self.updateTime = updateTime
    }

    /// The cost kind of this write when done alone.
    var kind: String {
        switch operation {
        case .set, .replace: "set"
        case .update, .patch: "update"
        case .delete: "delete"
        }
    }

    /// Whether resolving the write needs the current document.
    var needsCurrent: Bool {
        if precondition != .none || updateTime != nil { return true }
        switch operation {
        case .set(_, .none), .replace: return false
        case .set: return true
        case .update: return true
        case .patch(let mask, _, let transforms): return mask != nil || !transforms.isEmpty
        case .delete: return false
        }
    }

    /// Parses update keys (dotted field paths) and checks them with ``validatedUpdate(_:)``.
    static func updateFields(_ fields: [String: FieldValue]) throws -> [(FieldPath, FieldValue)] {
        try validatedUpdate(fields.map { (try FieldPath($0.key), $0.value) })
    }

    /// Firestore's rules for an update's fields: at least one, no path twice, no path inside another
    /// (`{"a.b": 1, "a": 2}` has no single meaning), and `delete` only at a listed path, never inside a map value.
    static func validatedUpdate(_ fields: [(FieldPath, FieldValue)]) throws -> [(FieldPath, FieldValue)] {
        guard !fields.isEmpty else {
            throw DocumentsError(
                .invalidValue, "an update needs at least one field", hint: "give a field to set, or a transform")
        }
        let sorted = fields.map(\.0).sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            if a == b {
                throw DocumentsError(
                    .invalidField, "the update names field '\(a.canonicalString)' twice",
                    hint: "give each field path once")
            }
            if b.segments.starts(with: a.segments) {
                throw DocumentsError(
                    .invalidField,
                    "the update names both '\(a.canonicalString)' and '\(b.canonicalString)', which lies inside it",
                    hint: "give the whole value of '\(a.canonicalString)', or only the fields inside it")
            }
        }
        for (field, value) in fields {
            for (path, transform) in try value.flatten(at: field).transforms where transform == .delete && path != field
            {
                throw DocumentsError(
                    .invalidValue,
                    "delete can only be used on a listed field of an update, not inside a map ('\(path.canonicalString)')",
                    hint: "list the field itself: '\(path.canonicalString)'")
            }
        }
        return fields
    }
}

/// The state of one path while a set of writes is resolved.
struct PathState {
    /// Whether the pre-commit state was read (so a version precondition can protect it).
    var read: Bool
    /// The stored document before the first write (when read).
    var original: StoredDocument?
    /// Data after the writes resolved so far (`nil` = missing); unknown when not read and not yet written.
    var data: DocumentData?
    var known: Bool
    /// The user precondition to hand to the engine when the path was not read.
    var blindPrecondition: WritePrecondition = .none
}

/// The distinct paths of a commit's writes (its slots), in order of first appearance, with each one's state.
private struct CommitSlots {
    var paths: [DocumentPath] = []
    var states: [PathState] = []
    /// `slotOfWrite[i]` is write i's slot.
    var slotOfWrite: [Int] = []
}

extension DocumentStore {
    /// Resolves and commits `writes` atomically; retries internally when a concurrent writer changed a document that
    /// was read to resolve them (unless `retry` is false, as in transactions). Returns one snapshot per write.
    package func commit(
        _ writes: [PendingWrite], kind: String, known: ExactKeyDictionary<StoredDocument?> = ExactKeyDictionary(),
        checks: [DocumentMutation] = [], retry: Bool = true, review: CommitReview? = nil
    ) async throws -> [DocumentSnapshot] {
        try limits.validateBatchSize(writes.count)
        guard !writes.isEmpty else { return [] }
        let recorded = try recorded(writes)
        let declared = try await indexes()
        let attempts = retry ? max(1, options.writeRetries) : 1
        // Writers of one document in this process queue for it rather than race (`PathWriteLocks`); a transaction's
        // commit (no retry) checks its reads instead.
        let contended = retry ? recorded.filter(\.needsCurrent).map(\.path.string) : []
        return try await pathLocks.withLocks(contended) {
            var attempt = 0
            while true {
                attempt += 1
                do {
                    let snapshots = try await commitOnce(
                        recorded, kind: kind, known: known, checks: checks, declared: declared, review: review)
                    // The recorder's own writes are not the caller's results.
                    return recorded.count == writes.count ? snapshots : Array(snapshots.prefix(writes.count))
                } catch let conflict as RetryableConflict {
                    guard retry else { throw conflict }
                    if attempt >= attempts { throw conflict.final }
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...(200 << min(attempt, 6)))))
                }
            }
        }
    }

    /// One attempt at the commit: reads what resolving the writes needs, resolves them in order, lets the review
    /// judge them, commits one mutation per document, then reports the commit (snapshots, costs, events, listeners).
    private func commitOnce(
        _ writes: [PendingWrite], kind: String, known: ExactKeyDictionary<StoredDocument?>, checks: [DocumentMutation],
        declared: [IndexDefinition], review: CommitReview?
    ) async throws -> [DocumentSnapshot] {
        var slots = try await slotsReadingCurrent(writes, known: known, review: review)
        // After every update time this commit read (another process may have written them within this process's
        // last microsecond): a document's update times stay unique and growing.
        let commitTime = commitTime(after: slots.states.lazy.compactMap { $0.original?.updateTime }.max())
        let (afterEach, deferredFailure) = try resolveInOrder(
            writes, slots: &slots, commitTime: commitTime, review: review)
        var checks = checks
        if let review { try await addChecks(of: review, to: &checks, writes: writes, slots: slots, after: afterEach) }
        if let deferredFailure { throw deferredFailure }
        var mutations = try mutations(for: slots, declared: declared)
        // Checks (a transaction's other reads) go last: one result per slot stays at the front.
        mutations.append(contentsOf: checks)
        let result = try await commitToEngine(
            mutations, commitTime: commitTime, slots: slots, hasChecks: !checks.isEmpty)
        // Snapshots, costs, events, listeners. `result.documents` has one entry per mutation, so per slot.
        let snapshots = snapshots(of: writes, after: afterEach, slots: slots, result: result, commitTime: commitTime)
        recordCosts(of: writes, kind: kind)
        publishChanges(slots, sequence: result.sequence, kind: kind)
        knownSequence.max(result.sequence, ordering: .relaxed)
        feed.notifyCommit()
        return marked(snapshots)
    }

    /// One slot per distinct path of `writes`, in order of first appearance, with the current document of each path
    /// that `known` gives, or that a write (or the review) needs: those are read from the engine in one call.
    private func slotsReadingCurrent(
        _ writes: [PendingWrite], known: ExactKeyDictionary<StoredDocument?>, review: CommitReview?
    ) async throws -> CommitSlots {
        // A review judges each write against the document before it: those paths are read.
        func reviewReads(_ path: DocumentPath) -> Bool { review?.needsBefore(path) ?? false }
        var slots = CommitSlots()
        slots.paths.reserveCapacity(writes.count)
        slots.states.reserveCapacity(writes.count)
        slots.slotOfWrite.reserveCapacity(writes.count)
        var toRead: [Int] = []
        // By the paths' bytes: canonically equivalent paths (equal Swift strings) are two documents. A single write
        // needs no lookup by path.
        var slotByPath = ExactKeyDictionary<Int>()
        for write in writes {
            let key = write.path.string
            let existing = writes.count == 1 ? nil : slotByPath[key]
            if let slot = existing {
                slots.slotOfWrite.append(slot)
                if write.needsCurrent || reviewReads(write.path), !slots.states[slot].read, !slots.states[slot].known,
                    !toRead.contains(slot)
                {
                    toRead.append(slot)
                }
                continue
            }
            let slot = slots.states.count
            if writes.count > 1 { slotByPath[key] = slot }
            slots.slotOfWrite.append(slot)
            slots.paths.append(write.path)
            if let stored = known[key] {
                slots.states.append(
                    PathState(
                        read: true, original: stored, data: try stored.map { try ValueCodec.decode($0.body) },
                        known: true))
            } else {
                slots.states.append(PathState(read: false, original: nil, data: nil, known: false))
                if write.needsCurrent || reviewReads(write.path) { toRead.append(slot) }
            }
        }
        if !toRead.isEmpty {
            let stored = try await engine.documents(at: toRead.map { slots.paths[$0].string })
            for (slot, document) in zip(toRead, stored) {
                slots.states[slot] = PathState(
                    read: true, original: document, data: try document.map { try ValueCodec.decode($0.body) },
                    known: true)
            }
        }
        return slots
    }

    /// Resolves each write in order against its slot's state; returns each write's result, and the first failed
    /// precondition when a review is to judge the writes first.
    private func resolveInOrder(
        _ writes: [PendingWrite], slots: inout CommitSlots, commitTime: Int64, review: CommitReview?
    ) throws -> (afterEach: [DocumentData?], deferredFailure: DocumentsError?) {
        var afterEach: [DocumentData?] = []
        afterEach.reserveCapacity(writes.count)
        var deferredFailure: DocumentsError?
        for (write, slot) in zip(writes, slots.slotOfWrite) {
            if write.precondition != .none {
                if slots.states[slot].known {
                    do { try Self.check(write.precondition, path: write.path, state: slots.states[slot]) } catch let
                        error
                        as DocumentsError where review != nil
                    {
                        // The rules judge first (as Firestore's do): a refusal wins over the failed precondition.
                        deferredFailure = deferredFailure ?? error
                    }
                } else {
                    slots.states[slot].blindPrecondition = write.precondition
                }
            }
            if let updateTime = write.updateTime {
                try Self.check(updateTime: updateTime, path: write.path, state: slots.states[slot])
            }
            let result = try resolve(
                write, current: slots.states[slot].known ? slots.states[slot].data : nil, commitTime: commitTime)
            slots.states[slot].data = result
            slots.states[slot].known = true
            afterEach.append(result)
        }
        return (afterEach, deferredFailure)
    }

    /// Runs `review` over the resolved writes and adds to `checks` a check-only mutation for each other document it
    /// read.
    private func addChecks(
        of review: CommitReview, to checks: inout [DocumentMutation], writes: [PendingWrite], slots: CommitSlots,
        after afterEach: [DocumentData?]
    ) async throws {
        let reviewed = try await self.review(
            review, writes: writes, slots: slots.slotOfWrite, paths: slots.paths, states: slots.states,
            after: afterEach)
        let checked = Set(checks.map(\.path))
        checks += reviewed.filter { !checked.contains($0.path) }
    }

    /// The mutations, one per slot: its final data (or a delete), under the version the commit read or the
    /// caller's precondition when it read none.
    private func mutations(for slots: CommitSlots, declared: [IndexDefinition]) throws -> [DocumentMutation] {
        var mutations: [DocumentMutation] = []
        mutations.reserveCapacity(slots.states.count)
        for (path, pathState) in zip(slots.paths, slots.states) {
            let precondition: WritePrecondition
            if pathState.read {
                precondition = pathState.original.map { .version($0.version) } ?? .exists(false)
            } else {
                precondition = pathState.blindPrecondition
            }
            if let data = pathState.data {
                let body = ValueCodec.encode(data)
                try limits.validate(data, encodedSize: body.count)
                let entries = indexNames.entries(
                    for: data, path: path.string, collectionPath: path.collectionString,
                    collectionID: path.collectionID, declared: declared)
                mutations.append(
                    DocumentMutation(
                        path: path.string, kind: .put(body: body, indexEntries: entries), precondition: precondition))
            } else {
                mutations.append(DocumentMutation(path: path.string, kind: .delete, precondition: precondition))
            }
        }
        return mutations
    }

    /// Commits `mutations` to the engine. A failed precondition derived from what this commit read (a version, an
    /// absence, a transaction's check) means a concurrent writer: a ``RetryableConflict``.
    private func commitToEngine(
        _ mutations: [DocumentMutation], commitTime: Int64, slots: CommitSlots, hasChecks: Bool
    ) async throws -> CommitResult {
        do {
            return try await engine.commit(mutations, commitTime: commitTime)
        } catch let error as DocumentsError where error.code == .preconditionFailed {
            let derived = hasChecks || slots.states.contains { $0.read }
            if derived { throw RetryableConflict(error: error) }
            throw error
        }
    }

    /// One snapshot per write: its own result, with the version and times of the committed document.
    private func snapshots(
        of writes: [PendingWrite], after afterEach: [DocumentData?], slots: CommitSlots, result: CommitResult,
        commitTime: Int64
    ) -> [DocumentSnapshot] {
        var snapshots: [DocumentSnapshot] = []
        snapshots.reserveCapacity(writes.count)
        for ((write, data), slot) in zip(zip(writes, afterEach), slots.slotOfWrite) {
            let stored = slot < result.documents.count ? result.documents[slot] : nil
            if let data, let stored {
                // The final stored document carries the version and times; the data is this write's result.
                snapshots.append(DocumentSnapshot(stored: stored, path: write.path, data: data))
            } else if let data {
                snapshots.append(
                    DocumentSnapshot(
                        path: write.path, data: data, version: result.sequence, createTime: nil,
                        updateTime: Timestamp(microseconds: commitTime)))
            } else {
                snapshots.append(.missing(write.path, version: result.sequence))
            }
        }
        return snapshots
    }

    /// Records the commit's cost: one write or delete per write, by collection (in collection order).
    private func recordCosts(of writes: [PendingWrite], kind: String) {
        if writes.count == 1 {
            let write = writes[0]
            let counts = if case .delete = write.operation { CostCounts(deletes: 1) } else { CostCounts(writes: 1) }
            recordCost(kind: kind, collection: write.path.collectionID, counts)
        } else {
            var costs: [String: CostCounts] = [:]
            for write in writes {
                let counts =
                    if case .delete = write.operation { CostCounts(deletes: 1) } else { CostCounts(writes: 1) }
                costs[write.path.collectionID, default: CostCounts()].add(counts)
            }
            for (collection, counts) in costs.sorted(by: { $0.key < $1.key }) {
                recordCost(kind: kind, collection: collection, counts)
            }
        }
    }

    /// Publishes ``DocumentsChanged`` for the committed paths, when the store has an event bus.
    private func publishChanges(_ slots: CommitSlots, sequence: Int64, kind: String) {
        guard let events = events else { return }
        var deleted: [String] = []
        for (path, pathState) in zip(slots.paths, slots.states) where pathState.data == nil {
            deleted.append(path.string)
        }
        events.publish(
            DocumentsChanged(
                payload: .init(sequence: sequence, paths: slots.paths.map(\.string), deletedPaths: deleted, kind: kind))
        )
    }

    /// Runs `review` over the resolved writes; answers check-only mutations for the other documents it read.
    private func review(
        _ review: CommitReview, writes: [PendingWrite], slots: [Int], paths: [DocumentPath], states: [PathState],
        after: [DocumentData?]
    ) async throws -> [DocumentMutation] {
        var before = ExactKeyDictionary<DocumentData?>()
        var written = ExactKeyDictionary<DocumentData?>()
        var originals: [DocumentData?] = []
        for (path, state) in zip(paths, states) {
            let data = try state.original.map { try ValueCodec.decode($0.body) }
            originals.append(data)
            if state.read { before[path.string] = .some(data) }
            written[path.string] = .some(state.data)
        }
        let items = zip(zip(writes, slots), after).map { pair, data in
            CommitReview.Write(
                path: pair.0.path, before: originals[pair.1], isBeforeKnown: states[pair.1].read, after: data,
                mustCreate: pair.0.precondition == .exists(false))
        }
        let documents = CommitDocuments(engine: engine, written: written, before: before)
        try await review.review(items, documents)
        return documents.checks()
    }

    private static func check(_ precondition: WritePrecondition, path: DocumentPath, state: PathState) throws {
        let exists = state.data != nil
        switch precondition {
        case .none:
            return
        case .exists(let expected):
            if exists != expected {
                throw DocumentsError(
                    .preconditionFailed,
                    expected
                        ? "document '\(path.string)' does not exist" : "document '\(path.string)' already exists")
            }
        case .version(let expected):
            let actual = state.original?.version
            if !state.read || actual != expected || !exists {
                throw DocumentsError(
                    .preconditionFailed,
                    "document '\(path.string)' is at version \(actual.map(String.init) ?? "none"), not \(expected)",
                    hint: "read it again and retry")
            }
        }
    }

    /// Firestore's `update_time` precondition: the document, as the commit found it, exists and was last written at
    /// exactly `updateTime`.
    private static func check(updateTime: Timestamp, path: DocumentPath, state: PathState) throws {
        guard let original = state.original, state.data != nil, original.updateTime == updateTime.microseconds
        else {
            throw DocumentsError(
                .preconditionFailed,
                state.data == nil
                    ? "document '\(path.string)' does not exist"
                    : "document '\(path.string)' was updated after \(updateTime.microseconds) µs",
                hint: "read it again and retry")
        }
    }
}

/// A precondition failure caused by a concurrent writer after the store's own read: safe to retry.
struct RetryableConflict: Error {
    var error: DocumentsError

    var final: DocumentsError {
        DocumentsError(
            .preconditionFailed, error.message,
            hint: "the document kept changing under concurrent writers; retry later", underlying: error.underlying)
    }
}
