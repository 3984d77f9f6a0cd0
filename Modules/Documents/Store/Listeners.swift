/// A listener's registration with the feed, and the stream it feeds.
private protocol StartableListener: ChangeListener {
    func start() async
    func cancel() async
}

/// What the three listeners share: their registration with the feed, cancel / finish / fail, and the records that
/// arrive while the initial state is computed (buffered, then processed in order before the listener is ready).
private protocol FeedListener: StartableListener {
    associatedtype Element: Sendable
    var store: DocumentStore { get }
    var continuation: AsyncThrowingStream<Element, any Error>.Continuation { get }
    var id: UInt64? { get set }
    /// Records at or below this sequence are already reflected.
    var baseline: Int64 { get set }
    var ready: Bool { get set }
    var pending: [ChangeRecord] { get set }
}

extension FeedListener {
    /// Registers with the feed: records committed after ``baseline`` arrive through `apply`.
    func register() async throws {
        let (id, baseline) = try await store.feed.register(self)
        self.id = id
        self.baseline = baseline
    }

    func cancel() async {
        if let id { await store.feed.unregister(id) }
        id = nil
    }

    func finish() async {
        id = nil
        continuation.finish()
    }

    func fail(_ error: any Error) async {
        continuation.finish(throwing: error)
        await cancel()
    }

    /// Keeps `records` for later while the listener starts (true); false when they can be processed now.
    func buffered(_ records: [ChangeRecord]) -> Bool {
        guard !ready else { return false }
        pending.append(contentsOf: records)
        return true
    }

    /// Processes the records buffered while starting, in order (more may arrive meanwhile), then becomes ready.
    func drain(_ process: ([ChangeRecord]) async throws -> Void) async rethrows {
        while !pending.isEmpty {
            let records = pending
            pending = []
            try await process(records)
        }
        ready = true
    }
}

/// Common plumbing: register, emit the initial state, then apply buffered and new records in order.
private func makeStream<Element: Sendable, L: StartableListener>(
    of type: Element.Type, _ build: (AsyncThrowingStream<Element, any Error>.Continuation) -> L
) -> AsyncThrowingStream<Element, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
    let listener = build(continuation)
    let task = Task { await listener.start() }
    continuation.onTermination = { _ in
        task.cancel()
        Task { await listener.cancel() }
    }
    return stream
}

extension DocumentReference {
    /// The document now, then again after every committed change to it (including commits of other processes on
    /// the same database file, seen within the store's poll interval). Ends with an error if the engine fails.
    ///
    /// ```swift
    /// for try await snapshot in try store.document("users/u1").snapshots() {
    ///     print(snapshot.get("points") ?? .null)
    /// }
    /// ```
    public func snapshots() -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        makeStream(of: DocumentSnapshot.self) { DocumentListener(store: store, path: path, continuation: $0) }
    }
}

extension QueryConvertible {
    /// The results now (every document `added`), then a new snapshot after every committed change that affects
    /// them, with ``QuerySnapshot/documentChanges`` (added / modified / removed, with old and new positions).
    public func snapshots() -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let query = query
        return makeStream(of: QuerySnapshot.self) { QueryListener(query: query, continuation: $0) }
    }
}

extension AggregateQuery {
    /// The aggregation now, then again whenever a committed change alters it.
    public func snapshots() -> AsyncThrowingStream<AggregateSnapshot, any Error> {
        let query = self
        return makeStream(of: AggregateSnapshot.self) { AggregateListener(query: query, continuation: $0) }
    }
}

// MARK: - Document listener

private actor DocumentListener: FeedListener {
    let store: DocumentStore
    let path: DocumentPath
    let continuation: AsyncThrowingStream<DocumentSnapshot, any Error>.Continuation
    var id: UInt64?
    var baseline: Int64 = 0
    var ready = false
    var pending: [ChangeRecord] = []
    /// The feed asked for a resync while `start` was still running.
    var resyncPending = false
    var lastVersion: Int64 = -1
    var lastExists = false

    init(
        store: DocumentStore, path: DocumentPath,
        continuation: AsyncThrowingStream<DocumentSnapshot, any Error>.Continuation
    ) {
        self.store = store
        self.path = path
        self.continuation = continuation
    }

    func start() async {
        do {
            try await register()
            let stored = try await store.engine.document(at: path.string)
            let snapshot = try stored.map { try DocumentSnapshot(stored: $0, path: path) } ?? .missing(path)
            emit(snapshot)
            await drain { process($0) }
            if resyncPending { await resync(through: baseline) }
        } catch {
            await fail(error)
        }
    }

    func apply(_ records: [ChangeRecord]) async {
        if buffered(records) { return }
        process(records)
    }

    func resync(through sequence: Int64) async {
        resyncPending = !ready
        guard ready else { return }  // `start` resyncs when it is done.
        do {
            let stored = try await store.engine.document(at: path.string)
            baseline = max(baseline, sequence)
            emit(try stored.map { try DocumentSnapshot(stored: $0, path: path) } ?? .missing(path, version: sequence))
        } catch {
            await fail(error)
        }
    }

    private func process(_ records: [ChangeRecord]) {
        guard let record = records.last(where: { $0.path == path.string && $0.sequence > baseline }) else { return }
        do {
            if let document = record.document {
                emit(try DocumentSnapshot(stored: document, path: path))
            } else {
                emit(.missing(path, version: record.sequence))
            }
        } catch {
            Task { await fail(error) }
        }
    }

    private func emit(_ snapshot: DocumentSnapshot) {
        if snapshot.version == lastVersion && snapshot.exists == lastExists { return }
        if !snapshot.exists && !lastExists && lastVersion >= 0 { return }
        lastVersion = snapshot.version
        lastExists = snapshot.exists
        store.recordCost(kind: "listen", collection: path.collection.collectionID, CostCounts(reads: 1))
        continuation.yield(store.marked([snapshot])[0])
    }
}

// MARK: - Query listener

private actor QueryListener: FeedListener {
    let query: Query
    let continuation: AsyncThrowingStream<QuerySnapshot, any Error>.Continuation
    var store: DocumentStore { query.store }
    var id: UInt64?
    var baseline: Int64 = 0
    var ready = false
    var pending: [ChangeRecord] = []
    /// The feed asked for a resync while `start` was still running.
    var resyncPending = false
    var normalized: NormalizedQuery?
    /// Current results, in query order, unmasked.
    var results: [Candidate] = []

    init(query: Query, continuation: AsyncThrowingStream<QuerySnapshot, any Error>.Continuation) {
        self.query = query
        self.continuation = continuation
    }

    func start() async {
        do {
            let normalized = try QueryRunner.normalize(query)
            self.normalized = normalized
            try await register()
            results = try await runQuery(normalized)
            let changes = results.enumerated().map { index, candidate in
                DocumentChange(kind: .added, document: mask(candidate.snapshot), oldIndex: nil, newIndex: index)
            }
            store.recordCost(
                kind: "listen", collection: query.costCollection, CostCounts(reads: Int64(max(1, results.count))))
            continuation.yield(
                store.marked(
                    QuerySnapshot(
                        documents: results.map { mask($0.snapshot) }, documentChanges: changes, sequence: baseline)))
            try await drain { try await process($0) }
            if resyncPending { await resync(through: baseline) }
        } catch {
            await fail(error)
        }
    }

    func apply(_ records: [ChangeRecord]) async {
        if buffered(records) { return }
        do {
            try await process(records)
        } catch {
            await fail(error)
        }
    }

    private func runQuery(_ normalized: NormalizedQuery) async throws -> [Candidate] {
        let runner = QueryRunner(query: query)
        let plans = try await runner.plan(normalized)
        return try await runner.collect(normalized, plans, stats: QueryStats())
    }

    private func process(_ records: [ChangeRecord]) async throws {
        guard let normalized else { return }
        // The latest record per relevant path, in commit order.
        var latest: [String: ChangeRecord] = [:]
        var order: [String] = []
        for record in records where record.sequence > baseline {
            guard let path = try? DocumentPath(record.path), normalized.contains(path) else { continue }
            if latest[record.path] == nil { order.append(record.path) }
            latest[record.path] = record
        }
        guard !order.isEmpty, let sequence = records.last?.sequence else { return }
        baseline = max(baseline, sequence)

        var changes: [DocumentChange] = []
        if normalized.limit == nil {
            // Apply each change to the ordered results.
            for key in order {
                guard let record = latest[key], let path = try? DocumentPath(key) else { continue }
                let oldIndex = results.firstIndex { $0.path.string == key }
                var candidate: Candidate?
                if let document = record.document {
                    let data = try ValueCodec.decode(document.body)
                    if normalized.matches(path, data) {
                        candidate = Candidate(path: path, stored: document, data: data)
                    }
                }
                switch (oldIndex, candidate) {
                case (nil, nil):
                    continue
                case (let old?, nil):
                    let removed = results.remove(at: old)
                    changes.append(
                        DocumentChange(kind: .removed, document: mask(removed.snapshot), oldIndex: old, newIndex: nil))
                case (let old?, let candidate?):
                    if results[old].stored.version == candidate.stored.version { continue }
                    results.remove(at: old)
                    let new = insertionIndex(candidate, normalized)
                    results.insert(candidate, at: new)
                    changes.append(
                        DocumentChange(
                            kind: .modified, document: mask(candidate.snapshot), oldIndex: old, newIndex: new))
                case (nil, let candidate?):
                    let new = insertionIndex(candidate, normalized)
                    results.insert(candidate, at: new)
                    changes.append(
                        DocumentChange(kind: .added, document: mask(candidate.snapshot), oldIndex: nil, newIndex: new))
                }
            }
        } else {
            // A limit: re-run the query and compare.
            changes = reconcile(with: try await runQuery(normalized))
        }
        guard !changes.isEmpty else { return }
        let reads = changes.filter { $0.kind != .removed }.count
        store.recordCost(kind: "listen", collection: query.costCollection, CostCounts(reads: Int64(reads)))
        continuation.yield(
            store.marked(
                QuerySnapshot(
                    documents: results.map { mask($0.snapshot) }, documentChanges: changes, sequence: sequence)))
    }

    func resync(through sequence: Int64) async {
        resyncPending = !ready
        guard ready, let normalized else { return }
        do {
            let changes = reconcile(with: try await runQuery(normalized))
            baseline = max(baseline, sequence)
            guard !changes.isEmpty else { return }
            let reads = changes.filter { $0.kind != .removed }.count
            store.recordCost(kind: "listen", collection: query.costCollection, CostCounts(reads: Int64(reads)))
            continuation.yield(
                store.marked(
                    QuerySnapshot(
                        documents: results.map { mask($0.snapshot) }, documentChanges: changes, sequence: sequence)))
        } catch {
            await fail(error)
        }
    }

    /// Replaces the results with `fresh` (a re-run of the query) and returns the changes between them.
    private func reconcile(with fresh: [Candidate]) -> [DocumentChange] {
        var changes: [DocumentChange] = []
        let freshPaths = Set(fresh.map(\.path.string))
        var current = results
        var index = current.count - 1
        while index >= 0 {
            if !freshPaths.contains(current[index].path.string) {
                let removed = current.remove(at: index)
                changes.append(
                    DocumentChange(kind: .removed, document: mask(removed.snapshot), oldIndex: index, newIndex: nil)
                )
            }
            index -= 1
        }
        for (newIndex, candidate) in fresh.enumerated() {
            if let old = current.firstIndex(where: { $0.path == candidate.path }) {
                let moved = old != newIndex
                let changed = current[old].stored.version != candidate.stored.version
                current.remove(at: old)
                current.insert(candidate, at: min(newIndex, current.count))
                if moved || changed {
                    changes.append(
                        DocumentChange(
                            kind: .modified, document: mask(candidate.snapshot), oldIndex: old, newIndex: newIndex))
                }
            } else {
                current.insert(candidate, at: min(newIndex, current.count))
                changes.append(
                    DocumentChange(
                        kind: .added, document: mask(candidate.snapshot), oldIndex: nil, newIndex: newIndex))
            }
        }
        results = fresh
        return changes
    }

    private func insertionIndex(_ candidate: Candidate, _ normalized: NormalizedQuery) -> Int {
        var low = 0
        var high = results.count
        let key = (candidate.path, candidate.data)
        while low < high {
            let mid = (low + high) / 2
            if normalized.areInOrder((results[mid].path, results[mid].data), key) {
                low = mid + 1
            } else {
                high = mid
            }
        }
        return low
    }

    private func mask(_ snapshot: DocumentSnapshot) -> DocumentSnapshot {
        guard let fields = query.mask else { return snapshot }
        return snapshot.masked(to: fields)
    }
}

// MARK: - Aggregation listener

private actor AggregateListener: FeedListener {
    let query: AggregateQuery
    let continuation: AsyncThrowingStream<AggregateSnapshot, any Error>.Continuation
    var store: DocumentStore { query.query.store }
    var id: UInt64?
    var baseline: Int64 = 0
    var ready = false
    /// Relevant records that arrived while starting: each batch means one more recomputation.
    var pending: [ChangeRecord] = []
    /// A resync asked for while starting: recompute once started.
    var resyncPending = false
    var last: [DocumentValue]?
    var normalized: NormalizedQuery?

    init(query: AggregateQuery, continuation: AsyncThrowingStream<AggregateSnapshot, any Error>.Continuation) {
        self.query = query
        self.continuation = continuation
    }

    func start() async {
        do {
            normalized = try QueryRunner.normalize(query.query)
            try await register()
            try await recompute()
            try await drain { _ in try await recompute() }
            if resyncPending {
                resyncPending = false
                try await recompute()
            }
        } catch {
            await fail(error)
        }
    }

    func apply(_ records: [ChangeRecord]) async {
        guard let normalized else { return }
        let relevant = records.contains { record in
            record.sequence > baseline && (try? DocumentPath(record.path)).map(normalized.contains) == true
        }
        guard relevant else { return }
        if let sequence = records.last?.sequence { baseline = max(baseline, sequence) }
        if buffered(records) { return }
        do {
            try await recompute()
        } catch {
            await fail(error)
        }
    }

    func resync(through sequence: Int64) async {
        baseline = max(baseline, sequence)
        guard ready else {
            resyncPending = true
            return
        }
        do {
            try await recompute()
        } catch {
            await fail(error)
        }
    }

    private func recompute() async throws {
        let (snapshot, entries) = try await query.compute()
        guard snapshot.results != last else { return }
        last = snapshot.results
        store.recordCost(
            kind: "listen", collection: query.query.costCollection,
            CostCounts(reads: AggregateQuery.readCost(entries: entries)))
        continuation.yield(snapshot)
    }
}
