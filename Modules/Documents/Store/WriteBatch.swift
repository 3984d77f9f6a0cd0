import Synchronization

/// Writes applied atomically in one commit (at most ``DocumentLimits/maximumBatchSize``, 500 by default).
///
/// ```swift
/// let batch = store.batch()
/// batch.setData(["points": 0], forDocument: try store.document("users/u2"))
/// batch.updateData(["orders": .increment(1)], forDocument: try store.document("stats/daily"))
/// let results = try await batch.commit()   // one snapshot per write, in order
/// ```
///
/// Each write can carry a ``WritePrecondition`` (`exists` or an exact `version`): the command line's transaction is a
/// read followed by a batch conditioned on the versions read.
public final class WriteBatch: Sendable {
    private let store: DocumentStore
    private let writes = Mutex<[PendingWrite]>([])
    private let firstError = Mutex<(any Error)?>(nil)

    init(store: DocumentStore) { self.store = store }

    /// The number of writes added so far.
    public var count: Int { writes.withLock { $0.count } }

    /// Adds a set (replace, or merge with `merge: true`).
    @discardableResult
    public func setData(
        _ data: [String: FieldValue], forDocument document: DocumentReference, merge: Bool = false,
        precondition: WritePrecondition = .none
    ) -> WriteBatch {
        add(PendingWrite(path: document.path, operation: .set(data, merge ? .all : .none), precondition: precondition))
    }

    /// Adds a set of plain data.
    @_disfavoredOverload
    @discardableResult
    public func setData(
        _ data: DocumentData, forDocument document: DocumentReference, merge: Bool = false,
        precondition: WritePrecondition = .none
    ) -> WriteBatch {
        add(
            PendingWrite(
                path: document.path, operation: merge ? .set(FieldValue.fields(data), .all) : .replace(data),
                precondition: precondition))
    }

    /// Adds a set that merges only the listed fields.
    @discardableResult
    public func setData(
        _ data: [String: FieldValue], forDocument document: DocumentReference, mergeFields: [String],
        precondition: WritePrecondition = .none
    ) -> WriteBatch {
        do {
            let mask = try mergeFields.map { try FieldPath($0) }
            return add(
                PendingWrite(path: document.path, operation: .set(data, .fields(mask)), precondition: precondition))
        } catch {
            return fail(error)
        }
    }

    /// Adds a set of an `Encodable` value.
    @discardableResult
    public func setData<T: Encodable>(
        from value: T, forDocument document: DocumentReference, merge: Bool = false,
        precondition: WritePrecondition = .none
    ) -> WriteBatch {
        do {
            let data = try DocumentEncoder().encode(value)
            return setData(FieldValue.fields(data), forDocument: document, merge: merge, precondition: precondition)
        } catch {
            return fail(error)
        }
    }

    /// Adds an update (keys are dotted field paths; the document must exist at commit time).
    @discardableResult
    public func updateData(
        _ fields: [String: FieldValue], forDocument document: DocumentReference, precondition: WritePrecondition = .none
    ) -> WriteBatch {
        do {
            return add(
                PendingWrite(
                    path: document.path, operation: .update(try PendingWrite.updateFields(fields)),
                    precondition: precondition))
        } catch {
            return fail(error)
        }
    }

    /// Adds a delete.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference, precondition: WritePrecondition = .none) -> WriteBatch {
        add(PendingWrite(path: document.path, operation: .delete, precondition: precondition))
    }

    /// Applies every write atomically (all or none) and returns one snapshot per write, in the order added.
    ///
    /// Fails with ``DocumentsError/Code-swift.struct/limitExceeded`` beyond the batch size limit, with
    /// ``DocumentsError/Code-swift.struct/notFound`` when an update's document is missing, with
    /// ``DocumentsError/Code-swift.struct/preconditionFailed`` when a precondition does not hold — nothing is
    /// written in any of these cases.
    @discardableResult
    public func commit() async throws -> [DocumentSnapshot] {
        if let error = firstError.withLock({ $0 }) { throw error }
        let pending = writes.withLock { $0 }
        return try await store.commit(pending, kind: "batch")
    }

    /// Commits as ``commit()`` does, with `review` judging each resolved write inside the commit (the server's rules).
    @discardableResult
    package func commit(review: CommitReview?) async throws -> [DocumentSnapshot] {
        if let error = firstError.withLock({ $0 }) { throw error }
        let pending = writes.withLock { $0 }
        return try await store.commit(pending, kind: "batch", review: review)
    }

    /// The writes so far (or the first error), for a recorder's extra writes.
    func pendingWrites() throws -> [PendingWrite] {
        if let error = firstError.withLock({ $0 }) { throw error }
        return writes.withLock { $0 }
    }

    private func add(_ write: PendingWrite) -> WriteBatch {
        writes.withLock { $0.append(write) }
        return self
    }

    private func fail(_ error: any Error) -> WriteBatch {
        firstError.withLock { if $0 == nil { $0 = error } }
        return self
    }
}
