import Foundation
public import Logging
public import SuiteCore
import Synchronization

/// A Firestore-like document database over a ``DocumentEngine``: references, writes with transforms that return the
/// resulting document, batches, transactions, indexed queries with `explain`, listeners, and cost accounting.
///
/// ```swift
/// let store = DocumentStore(engine: try SQLiteDocumentEngine(path: file), bus: bus, logger: logger)
/// let user = try await store.document("users/u1").setData(["name": "Ada", "points": 10])
/// let top = try await store.collection("users").whereField("points", isGreaterThan: 5).getDocuments()
/// ```
///
/// Every field of every document is indexed automatically (single-field ascending, plus array-contains for arrays),
/// so equality and single-field range queries never scan a collection; multi-field queries need a declared index
/// (``declareIndex(_:)``), and a query lacking one fails with an error naming the index to create.
///
/// Choices and limits worth knowing:
/// - Query rules are Firestore's (see ``Query``): inequalities on one field come first in order-by; inequalities on
///   several fields are allowed and need a declared composite index.
/// - Writes that need the current document (merge, update, transforms, preconditions) read it and commit on its
///   version, retrying internally when a concurrent writer got there first.
/// - A transaction's commit is conditioned on the versions of the documents it writes; documents it only reads are
///   re-checked just before the commit, not atomically with it (a narrow write-skew window across processes).
///   Inside one process, retries are serialized so that contended transactions all commit.
/// - Cost counters are added to the engine's metadata by read-modify-write; two processes flushing at the same
///   instant can lose one flush's counts.
/// - Listeners follow the engine's change log: at once for this store's commits, within
///   ``Options/listenerPollInterval`` for other processes'.
public final class DocumentStore: Sendable {
    /// Tuning knobs.
    public struct Options: Sendable, Hashable {
        /// How often listeners poll the engine's change log for commits made by other processes.
        public var listenerPollInterval: Duration = .milliseconds(100)
        /// Cost counters are written to the engine's metadata at most this often (and on ``DocumentStore/close()``
        /// and ``DocumentStore/flushCosts()``).
        public var costFlushInterval: Duration = .milliseconds(1000)
        /// `documents.cost` events are published at most this often per store: the first operation after a quiet
        /// interval is published at once, later ones are summed per kind and collection and published together when
        /// the interval is over (and on ``DocumentStore/close()``). Sums are exact; a busy server publishes a few
        /// events a second instead of one per read. Zero publishes every operation.
        public var costEventInterval: Duration = .milliseconds(250)
        /// How long the declared-index list is trusted before it is read again from the engine's metadata (so that an
        /// index declared by another process is maintained by this one too). ``DocumentStore/declareIndex(_:)``
        /// waits this long before catching up with documents other processes wrote meanwhile.
        public var indexRefreshInterval: Duration = .seconds(1)
        /// How many times a single write retries after a concurrent writer changed the document it read.
        public var writeRetries: Int = 50
        /// Whether identical one-shot reads running at once share one execution (``QueryCoalescing``). Off by default.
        public var queryCoalescing = QueryCoalescing()
        /// At most so many query executions a second, waiting or failing over it (``QueryRateLimit``). `nil`, the
        /// default: no limit.
        public var queryRateLimit: QueryRateLimit?

        /// Default options.
        public init() {}
    }

    /// The storage engine.
    public let engine: any DocumentEngine
    /// The bus commits and costs are published on, if any.
    public let bus: EventBus?
    /// Publishes this store's events (`documents.changed`, `documents.cost`) with source `documents`.
    let events: EventPublisher?
    /// The clock that stamps commits (and server timestamps).
    public let clock: any WallClock
    /// Document limits (size, depth, batch size).
    public let limits: DocumentLimits
    /// Options.
    public let options: Options
    let logger: Logger

    struct State: Sendable {
        var indexes: [IndexDefinition]?
        var indexesLoadedAt: ContinuousClock.Instant?
        var pendingCosts = CostReport()
        var sessionCosts = CostReport()
        var lastCostFlush: ContinuousClock.Instant
        var flushScheduled = false
        var costEvents = CostEventThrottle()
        var closed = false
        var recorder: (any CommitRecorder)?
    }

    let state: Mutex<State>
    let feed: ChangeFeed
    /// Whether the data is an unconfirmed local copy (``isFromCache``), and who follows it.
    let source = SourceState()
    let retryGate = AsyncGate()
    /// Writers of one document in this process queue for it (`PathWriteLocks`).
    let pathLocks = PathWriteLocks()
    /// Serializes cost flushes: each is a read-modify-write of the engine's metadata.
    let costGate = AsyncGate()
    /// The highest change-log sequence this store has committed (one-shot query snapshots report it).
    let knownSequence = Atomic<Int64>(0)
    /// The last commit time handed out: commit times of this store only grow, so two writes of one document never
    /// share an update time (Firestore's `update_time` preconditions compare them exactly).
    let lastCommitTime = Atomic<Int64>(0)
    /// The index names of earlier writes, so that a write does not build them again.
    let indexNames = IndexPolicy.NameCache()
    /// Shares identical query executions (``Options/queryCoalescing``); `nil` when off.
    let queryCoalescer: QueryCoalescer<QueryKey, SharedQueryResult>?
    /// Shares identical single-document reads (``Options/queryCoalescing``); `nil` when off.
    let documentCoalescer: QueryCoalescer<String, DocumentSnapshot>?
    /// Enforces ``Options/queryRateLimit``; `nil` without one.
    let queryLimiter: QueryRateLimiter?
    /// How ``declareIndex(_:)`` waits for other processes to see a new index before it catches up with their writes:
    /// `Task.sleep` (tests hold it, to write from another store meanwhile).
    let waitForIndexRefresh: @Sendable (Duration) async throws -> Void

    /// Creates a store over `engine`.
    /// - Parameters:
    ///   - engine: where documents live (``SQLiteDocumentEngine`` by default in `suite`).
    ///   - bus: receives `documents.changed` after every commit and `documents.cost` for billed operations (summed
    ///     over ``Options/costEventInterval``).
    ///   - clock: stamps commits; inject a `ManualWallClock` in tests.
    ///   - limits: document size, nesting depth and batch size limits.
    ///   - logger: the module's logger.
    ///   - options: polling and flushing intervals.
    public convenience init(
        engine: any DocumentEngine, bus: EventBus? = nil, clock: any WallClock = SystemWallClock(),
        limits: DocumentLimits = .default, logger: Logger = Logger(label: "suite.documents"),
        options: Options = Options()
    ) {
        self.init(
            engine: engine, bus: bus, clock: clock, limits: limits, logger: logger, options: options,
            queryLimiter: options.queryRateLimit.flatMap { $0.isEffective ? QueryRateLimiter($0) : nil })
    }

    /// Creates a store whose query-rate limit is `queryLimiter` (tests give it a manual clock) and whose
    /// ``declareIndex(_:)`` waits for the index refresh with `waitForIndexRefresh`.
    init(
        engine: any DocumentEngine, bus: EventBus?, clock: any WallClock, limits: DocumentLimits, logger: Logger,
        options: Options, queryLimiter: QueryRateLimiter?,
        waitForIndexRefresh: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.queryLimiter = queryLimiter
        self.waitForIndexRefresh = waitForIndexRefresh
        let coalescing = options.queryCoalescing
        self.queryCoalescer = coalescing.isEnabled ? QueryCoalescer(window: coalescing.reuseWindow) : nil
        self.documentCoalescer = coalescing.isEnabled ? QueryCoalescer(window: coalescing.reuseWindow) : nil
        self.engine = engine
        self.bus = bus
        self.events = bus?.publisher(source: "documents")
        self.clock = clock
        self.limits = limits
        self.options = options
        self.logger = logger
        self.state = Mutex(State(lastCostFlush: ContinuousClock.now))
        self.feed = ChangeFeed(engine: engine, pollInterval: options.listenerPollInterval)
    }

    // MARK: References

    /// The collection at `path` (`users`, `users/u1/orders`). Throws ``DocumentsError/Code-swift.struct/invalidPath``.
    public func collection(_ path: String) throws -> CollectionReference {
        CollectionReference(store: self, path: try CollectionPath(path))
    }

    /// The document at `path` (`users/u1`). Throws ``DocumentsError/Code-swift.struct/invalidPath``.
    public func document(_ path: String) throws -> DocumentReference {
        DocumentReference(store: self, path: try DocumentPath(path))
    }

    /// The document at `path`.
    public func document(_ path: DocumentPath) -> DocumentReference {
        DocumentReference(store: self, path: path)
    }

    /// A query over every collection whose id is `collectionID`, at any depth. Filters and orders need a declared
    /// collection-group index; a plain scan does not.
    public func collectionGroup(_ collectionID: String) throws -> Query {
        guard !collectionID.isEmpty, !collectionID.contains("/") else {
            throw DocumentsError(
                .invalidPath, "a collection group is named by a collection id, not a path: '\(collectionID)'",
                hint: "use the last segment, e.g. 'orders'")
        }
        return Query(store: self, target: .group(collectionID))
    }

    /// A new, empty batch of writes, applied atomically by ``WriteBatch/commit()``.
    public func batch() -> WriteBatch { WriteBatch(store: self) }

    /// The last commit's change-log sequence.
    public func lastSequence() async throws -> Int64 { try await engine.lastSequence() }

    // MARK: Reads

    /// Reads several documents at once (1 read each, Firestore-style), in the order given.
    public func getDocuments(_ paths: [DocumentPath]) async throws -> [DocumentSnapshot] {
        let stored = try await engine.documents(at: paths.map(\.string))
        var result: [DocumentSnapshot] = []
        result.reserveCapacity(paths.count)
        for (path, document) in zip(paths, stored) {
            if let document {
                result.append(try DocumentSnapshot(stored: document, path: path))
            } else {
                result.append(.missing(path))
            }
        }
        for path in paths { recordCost(kind: "get", collection: path.collection.collectionID, CostCounts(reads: 1)) }
        return marked(result)
    }

    // MARK: Lifecycle

    /// Stops listeners, flushes the cost counters, and shuts the engine down (``DocumentEngine/shutdown()``): the
    /// SQLite engine finishes its background index work, flushes pending index operations past a small limit so the
    /// next process starts cheaply, and closes its file. Neither the store nor its engine is usable afterwards (the
    /// in-memory engine has nothing to close and stays usable). Closing a closed store does nothing. It suspends the
    /// caller; no thread is blocked while it waits.
    public func close() async {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        if wasClosed { return }
        await feed.stop()
        source.finish()
        publishCostEvents()
        do {
            try await flushCosts()
        } catch {
            logger.warning("cost counters not saved at close", metadata: ["error": "\(error)"])
        }
        await engine.shutdown()
    }

    /// What the engine's index maintenance has left to do — pending index operations, runs — or `nil` for an engine
    /// that keeps none (see ``IndexMaintenanceStatus``). `suite docs stats` prints it.
    public func indexStatus() async throws -> IndexMaintenanceStatus? { try await engine.indexStatus() }

    /// The change log's size and horizon (``ChangeLogStatus``), or `nil` for an engine that does not report it.
    /// `suite docs stats` prints it.
    public func changeLogStatus() async throws -> ChangeLogStatus? { try await engine.changeLogStatus() }

    // MARK: Indexes

    static let indexesMetadataKey = "documents.indexes"

    /// The declared indexes (loaded once from the engine's metadata).
    public func indexes() async throws -> [IndexDefinition] {
        let now = ContinuousClock.now
        let cached = state.withLock { state -> [IndexDefinition]? in
            guard let loadedAt = state.indexesLoadedAt, now - loadedAt < options.indexRefreshInterval else {
                return nil
            }
            return state.indexes
        }
        if let cached { return cached }
        var loaded: [IndexDefinition] = []
        if let bytes = try await engine.metadata(forKey: Self.indexesMetadataKey), !bytes.isEmpty {
            let text = String(decoding: bytes, as: UTF8.self)
            let json = try JSONValue(parsing: text)
            loaded = try (json.arrayValue ?? []).map { try IndexDefinition(json: $0) }
        }
        state.withLock { state in
            state.indexes = loaded
            state.indexesLoadedAt = now
        }
        return loaded
    }

    /// Declares an index and backfills it from the existing documents. Declaring an index that exists does nothing.
    ///
    /// Collection-scope indexes cover every collection with that id (as in Firestore); group-scope indexes serve
    /// ``collectionGroup(_:)`` queries.
    public func declareIndex(_ definition: IndexDefinition) async throws {
        try definition.validate()
        var current = try await indexes()
        guard !current.contains(definition) else { return }
        current.append(definition)
        let start = try await engine.lastSequence()
        try await saveIndexes(current)
        // Backfill: every document of every collection with this id.
        var after: String?
        let page = 500
        while true {
            let documents = try await engine.documents(
                inCollectionGroup: definition.collectionID, after: after, limit: page)
            if documents.isEmpty { break }
            try await backfill(definition, documents)
            after = documents.last?.path
            if documents.count < page { break }
        }
        // Other processes learn of the index within their refresh interval; catch up with what they wrote meanwhile.
        try await waitForIndexRefresh(options.indexRefreshInterval)
        var sequence = start
        while true {
            let records = try await engine.changes(after: sequence, limit: 1000)
            guard let last = records.last else { break }
            sequence = last.sequence
            let paths = Set(
                records.compactMap { record -> String? in
                    guard record.document != nil, let path = try? DocumentPath(record.path),
                        path.collection.collectionID.hasSameBytes(as: definition.collectionID)
                    else { return nil }
                    return record.path
                })
            if !paths.isEmpty {
                let documents = try await engine.documents(at: paths.sorted()).compactMap { $0 }
                try await backfill(definition, documents)
            }
            if records.count < 1000 { break }
        }
        logger.debug("declared index \(definition.description)")
    }

    private func backfill(_ definition: IndexDefinition, _ documents: [StoredDocument]) async throws {
        var additions: [IndexAddition] = []
        for stored in documents {
            guard let path = try? DocumentPath(stored.path) else { continue }
            let data = try ValueCodec.decode(stored.body)
            var entries: [IndexEntry] = []
            IndexPolicy.addDeclaredEntries(
                definition, data: data, path: path.string, collectionPath: path.collection.string, into: &entries)
            if !entries.isEmpty { additions.append(IndexAddition(path: stored.path, entries: entries)) }
        }
        if !additions.isEmpty { try await engine.addIndexEntries(additions) }
    }

    /// Drops a declared index and its entries. Dropping an unknown index does nothing.
    public func dropIndex(_ definition: IndexDefinition) async throws {
        var current = try await indexes()
        guard let position = current.firstIndex(of: definition) else { return }
        current.remove(at: position)
        try await saveIndexes(current)
        switch definition.scope {
        case .collectionGroup:
            try await engine.removeIndex(definition.indexName(collectionPath: definition.collectionID))
        case .collection:
            // One engine index per collection path: find the paths that exist.
            var collections = Set<String>()
            var after: String?
            while true {
                let documents = try await engine.documents(
                    inCollectionGroup: definition.collectionID, after: after, limit: 1000)
                for document in documents {
                    if let path = try? DocumentPath(document.path) { collections.insert(path.collection.string) }
                }
                after = documents.last?.path
                if documents.count < 1000 { break }
            }
            for collection in collections {
                try await engine.removeIndex(definition.indexName(collectionPath: collection))
            }
        }
    }

    private func saveIndexes(_ list: [IndexDefinition]) async throws {
        let text = JSONValue.array(list.map(\.json)).jsonString
        try await engine.setMetadata(Array(text.utf8), forKey: Self.indexesMetadataKey)
        state.withLock { state in
            state.indexes = list
            state.indexesLoadedAt = ContinuousClock.now
        }
    }

    // MARK: Costs

    static let costsMetadataKey = "documents.costs"

    /// Costs counted so far by every process using this engine (persisted counters plus this process's unflushed
    /// ones).
    public func costs() async throws -> CostReport {
        var report = CostReport()
        if let bytes = try await engine.metadata(forKey: Self.costsMetadataKey), !bytes.isEmpty {
            report = CostReport(json: try JSONValue(parsing: String(decoding: bytes, as: UTF8.self)))
        }
        report.add(state.withLock { $0.pendingCosts })
        return report
    }

    /// Costs counted by this store instance since it was created.
    public var sessionCosts: CostReport { state.withLock { $0.sessionCosts } }

    /// Adds this process's unflushed costs to the persisted counters.
    public func flushCosts() async throws {
        await costGate.lock()
        defer { costGate.unlock() }
        let pending = state.withLock { state -> CostReport in
            let pending = state.pendingCosts
            state.pendingCosts = CostReport()
            state.lastCostFlush = ContinuousClock.now
            state.flushScheduled = false
            return pending
        }
        guard !pending.isEmpty else { return }
        do {
            // One atomic read-modify-write in the engine: flushes of other processes cannot come between.
            try await engine.updateMetadata(forKey: Self.costsMetadataKey) { bytes in
                var report = CostReport()
                if let bytes, !bytes.isEmpty {
                    report = CostReport(json: try JSONValue(parsing: String(decoding: bytes, as: UTF8.self)))
                }
                report.add(pending)
                return Array(report.json.jsonString.utf8)
            }
        } catch {
            state.withLock { $0.pendingCosts.add(pending) }
            throw error
        }
    }

    /// Resets the persisted and pending cost counters to zero.
    public func resetCosts() async throws {
        state.withLock { $0.pendingCosts = CostReport() }
        try await engine.setMetadata(nil, forKey: Self.costsMetadataKey)
    }

    func recordCost(kind: String, collection: String, _ counts: CostCounts) {
        guard !counts.isZero else { return }
        let now = ContinuousClock.now
        let publishing = events != nil
        // One lock for the counters and the held-back events: this runs for every billed operation.
        let (shouldFlush, due, wait) = state.withLock { state in
            state.pendingCosts.add(kind: kind, collection: collection, counts)
            state.sessionCosts.add(kind: kind, collection: collection, counts)
            let shouldFlush = isFlushDue(&state, now: now)
            guard publishing else { return (shouldFlush, [DocumentsCost.Payload](), Duration?.none) }
            let (due, wait) = state.costEvents.add(
                kind: kind, collection: collection, counts, now: now, interval: options.costEventInterval)
            return (shouldFlush, due, wait)
        }
        for payload in due { events?.publish(DocumentsCost(payload: payload)) }
        if let wait {
            Task { [weak self] in
                try? await Task.sleep(for: wait)
                self?.publishCostEvents()
            }
        }
        if shouldFlush {
            Task { [weak self] in try? await self?.flushCosts() }
        }
    }

    /// Whether the pending counters are due for a flush (then marked scheduled).
    func isFlushDue(_ state: inout State, now: ContinuousClock.Instant) -> Bool {
        guard !state.flushScheduled, !state.closed, now - state.lastCostFlush >= options.costFlushInterval else {
            return false
        }
        state.flushScheduled = true
        return true
    }

    /// Publishes the summed `documents.cost` events still held back.
    func publishCostEvents() {
        let due = state.withLock { $0.costEvents.take(now: ContinuousClock.now) }
        for payload in due { events?.publish(DocumentsCost(payload: payload)) }
    }

    // MARK: Time

    /// The commit time of a new commit: the clock's microseconds, or one past the previous commit time of this
    /// store when the clock has not moved on (or went back).
    var nowMicroseconds: Int64 { commitTime(after: nil) }

    /// A commit time past `earlier` (an update time the commit read) as well as past the store's previous one.
    func commitTime(after earlier: Int64?) -> Int64 {
        let now = max(Timestamp(clock.now).microseconds, (earlier ?? .min) &+ 1)
        var last = lastCommitTime.load(ordering: .relaxed)
        while true {
            let next = max(now, last &+ 1)
            let (exchanged, original) = lastCommitTime.compareExchange(
                expected: last, desired: next, ordering: .relaxed)
            if exchanged { return next }
            last = original
        }
    }
}
