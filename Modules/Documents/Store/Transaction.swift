import SuiteCore
import Synchronization

/// A transaction's reads and buffered writes. Read first, then write: a read after a write is an error.
///
/// The commit is conditioned on every document read still having the version that was read (or still missing),
/// checked by the engine atomically with the writes, so a concurrent change — from this process or another — makes
/// the attempt fail and ``DocumentStore/runTransaction(maxAttempts:_:)`` run the body again: transactions are
/// serializable.
public final class Transaction: Sendable {
    private struct State {
        /// By the paths' bytes: canonically equivalent paths (equal Swift strings) are two documents.
        var reads = ExactKeyDictionary<StoredDocument?>()
        var writes: [PendingWrite] = []
    }

    private let store: DocumentStore
    private let state = Mutex(State())

    package init(store: DocumentStore) { self.store = store }

    /// Records a document read by other means (a query inside the transaction) as if ``getDocument(_:)`` had read
    /// it: the commit then requires it unchanged. A path read before keeps its first read.
    package func record(_ snapshot: DocumentSnapshot) {
        let stored = snapshot.data.map { data in
            StoredDocument(
                path: snapshot.path.string, body: ValueCodec.encode(data), version: snapshot.version,
                createTime: snapshot.createTime?.microseconds ?? 0, updateTime: snapshot.updateTime?.microseconds ?? 0)
        }
        state.withLock { state in
            if state.reads[snapshot.path.string] == nil { state.reads[snapshot.path.string] = .some(stored) }
        }
    }

    /// Buffers a write built by a protocol front end.
    package func buffer(_ write: PendingWrite) { _ = add(write) }

    /// Commits as ``commit()`` does, a conflict reported as ``DocumentsError/Code-swift.struct/transactionAborted``
    /// (the caller retries the whole transaction).
    package func commitOnce(review: CommitReview? = nil) async throws -> [DocumentSnapshot] {
        do {
            return try await commit(review: review)
        } catch let conflict as RetryableConflict {
            throw DocumentsError(
                .transactionAborted, "the transaction was aborted: \(conflict.error.message)",
                hint: "retry the transaction", underlying: conflict.error)
        }
    }

    /// Reads a document (1 read). Reading the same document twice returns the first read.
    public func getDocument(_ document: DocumentReference) async throws -> DocumentSnapshot {
        let key = document.path.string
        let cached = try state.withLock { state -> StoredDocument?? in
            guard state.writes.isEmpty else {
                throw DocumentsError(
                    .unsupported, "a transaction must do all its reads before its writes (read of '\(key)')",
                    hint: "move the getDocument calls to the start of the transaction")
            }
            return state.reads[key]
        }
        let stored: StoredDocument?
        if let cached {
            stored = cached
        } else {
            stored = try await store.engine.document(at: key)
            store.recordCost(
                kind: "transaction", collection: document.path.collection.collectionID, CostCounts(reads: 1))
            state.withLock { state in
                if state.reads[key] == nil { state.reads[key] = .some(stored) }
            }
        }
        guard let stored else { return .missing(document.path) }
        return try DocumentSnapshot(stored: stored, path: document.path)
    }

    /// Reads documents as a read-only transaction answers them: all as they were at one moment of the store. The
    /// documents asked for are read in one engine read together with every document the transaction read before; when
    /// one of those changed since, no single moment holds all the reads, and this fails with
    /// ``DocumentsError/Code-swift.struct/transactionAborted`` instead of answering a mix of two states. With no
    /// documents it checks the earlier reads alone (after a query, whose results ``record(_:)`` kept).
    package func getDocumentsAtOneMoment(_ documents: [DocumentReference]) async throws -> [DocumentSnapshot] {
        let earlier = state.withLock { $0.reads }
        var paths = documents.map(\.path.string)
        var seen = ExactKeyDictionary<Bool>()
        for path in paths { seen[path] = true }
        for key in earlier.keys.sorted() where seen[key] == nil {
            seen[key] = true
            paths.append(key)
        }
        if paths.isEmpty { return [] }
        let stored = try await store.engine.documents(at: paths)
        var current = ExactKeyDictionary<StoredDocument?>()
        for (path, document) in zip(paths, stored) { current[path] = .some(document) }
        for (path, read) in earlier where read?.version != (current[path] ?? nil)?.version {
            throw DocumentsError(
                .transactionAborted,
                "the transaction was aborted: '\(path)' changed after the transaction read it, so its reads do not "
                    + "hold at one moment",
                hint: "retry the transaction; read everything in one call to make this unlikely")
        }
        for document in documents {
            store.recordCost(
                kind: "transaction", collection: document.path.collection.collectionID, CostCounts(reads: 1))
        }
        return try state.withLock { state in
            try documents.map { document in
                let key = document.path.string
                if state.reads[key] == nil { state.reads[key] = .some(current[key] ?? nil) }
                guard let found = current[key] ?? nil else { return DocumentSnapshot.missing(document.path) }
                return try DocumentSnapshot(stored: found, path: document.path)
            }
        }
    }

    /// Buffers a set.
    @discardableResult
    public func setData(
        _ data: [String: FieldValue], forDocument document: DocumentReference, merge: Bool = false
    ) -> Transaction {
        add(PendingWrite(path: document.path, operation: .set(data, merge ? .all : .none), precondition: .none))
    }

    /// Buffers a set of plain data.
    @_disfavoredOverload
    @discardableResult
    public func setData(_ data: DocumentData, forDocument document: DocumentReference, merge: Bool = false)
        -> Transaction
    {
        setData(FieldValue.fields(data), forDocument: document, merge: merge)
    }

    /// Buffers a set of an `Encodable` value.
    @discardableResult
    public func setData<T: Encodable>(from value: T, forDocument document: DocumentReference, merge: Bool = false)
        throws -> Transaction
    {
        setData(FieldValue.fields(try DocumentEncoder().encode(value)), forDocument: document, merge: merge)
    }

    /// Buffers an update (keys are dotted field paths).
    @discardableResult
    public func updateData(_ fields: [String: FieldValue], forDocument document: DocumentReference) throws
        -> Transaction
    {
        add(
            PendingWrite(
                path: document.path, operation: .update(try PendingWrite.updateFields(fields)), precondition: .none))
    }

    /// Buffers a delete.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> Transaction {
        add(PendingWrite(path: document.path, operation: .delete, precondition: .none))
    }

    private func add(_ write: PendingWrite) -> Transaction {
        state.withLock { $0.writes.append(write) }
        return self
    }

    /// Commits the buffered writes conditioned on the reads: documents written carry their read version (or "still
    /// missing") as their precondition, and every document read but not written becomes a check-only mutation
    /// (``DocumentMutation/Kind-swift.enum/check``), verified by the engine in the commit's own atomic step — so the
    /// transaction is serializable, across processes too.
    func commit(review: CommitReview? = nil) async throws -> [DocumentSnapshot] {
        let (reads, writes) = state.withLock { ($0.reads, $0.writes) }
        var written = ExactKeyDictionary<Bool>()
        for write in writes { written[write.path.string] = true }
        let checks = reads.keys.filter { written[$0] == nil }.sorted().map { key in
            DocumentMutation(
                path: key, kind: .check,
                precondition: (reads[key] ?? nil).map { .version($0.version) } ?? .exists(false))
        }
        guard !writes.isEmpty else {
            if checks.isEmpty { return [] }
            do {
                _ = try await store.engine.commit(checks, commitTime: store.nowMicroseconds)
            } catch let error as DocumentsError where error.code == .preconditionFailed {
                throw RetryableConflict(error: error)
            }
            return []
        }
        var known = ExactKeyDictionary<StoredDocument?>()
        for write in writes {
            if let read = reads[write.path.string] { known[write.path.string] = read }
        }
        return try await store.commit(
            writes, kind: "transaction", known: known, checks: checks, retry: false, review: review)
    }
}

extension DocumentStore {
    /// Runs `body` in an optimistic transaction: its reads are recorded, its writes buffered, and the commit succeeds
    /// only if no document it read changed meanwhile; otherwise `body` runs again (up to `maxAttempts` times, with
    /// backoff), then fails with ``DocumentsError/Code-swift.struct/transactionAborted``.
    ///
    /// ```swift
    /// try await store.runTransaction { tx in
    ///     let user = try await tx.getDocument(userRef)
    ///     guard case .int(let points)? = user.get("points"), points >= 10 else { throw MyError.notEnough }
    ///     try tx.updateData(["points": .increment(-10)], forDocument: userRef)
    ///     tx.setData(["points": -10, "at": .serverTimestamp], forDocument: try log.document())
    /// }
    /// ```
    ///
    /// Inside one process, attempts after a conflict are serialized, so many concurrent transactions on one document
    /// all commit. Errors thrown by `body` (and non-conflict errors) end the transaction at once.
    @discardableResult
    public func runTransaction<T: Sendable>(
        maxAttempts: Int = 5, _ body: @Sendable (Transaction) async throws -> T
    ) async throws -> T {
        let attempts = max(1, maxAttempts)
        var lastConflict: DocumentsError?
        for attempt in 1...attempts {
            // Serialize retries (and attempts while others retry) within this process; a transaction started inside
            // a serialized one does not wait for the gate it already holds.
            let serialized = !AsyncGate.held && (attempt > 1 || retryGate.isBusy)
            if serialized { await retryGate.lock() }
            do {
                let value = try await AsyncGate.$held.withValue(AsyncGate.held || serialized) {
                    let transaction = Transaction(store: self)
                    let value = try await body(transaction)
                    _ = try await transaction.commit()
                    return value
                }
                if serialized { retryGate.unlock() }
                return value
            } catch let conflict as RetryableConflict {
                if serialized { retryGate.unlock() }
                lastConflict = conflict.error
                if attempt < attempts {
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...(500 << min(attempt, 5)))))
                }
            } catch {
                if serialized { retryGate.unlock() }
                throw error
            }
        }
        throw DocumentsError(
            .transactionAborted,
            "the transaction was aborted after \(attempts) attempts: documents it read kept changing",
            hint: "retry later, or reduce contention on the documents involved", underlying: lastConflict)
    }
}
