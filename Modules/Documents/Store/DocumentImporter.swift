import SuiteCore
import Synchronization

/// Bulk-loads documents into one collection in large atomic chunks, streaming: feed documents one at a time with
/// ``add(id:data:)`` and call ``finish()`` at the end.
///
/// ```swift
/// let importer = store.importer(into: try store.collection("orders"), chunkSize: 5000)
/// for (id, data) in rows { try await importer.add(id: id, data: data) }
/// let imported = try await importer.finish()
/// ```
///
/// Semantics:
/// - Each document is *set* (replacing any existing document with the same id); a `nil` id gets an `AutoID`.
/// - Each chunk (``chunkSize`` documents, fewer when their bodies and index keys reach ``maximumChunkBytes``) is one
///   atomic engine commit; **the import as a whole is not atomic**: when
///   it fails, the chunks committed before stay. Chunks are not subject to ``DocumentLimits/maximumBatchSize``
///   (that limit is for user batches).
/// - Every document is validated against ``DocumentStore/limits`` when added; a bad document throws at once (its
///   chunk is not committed) with its 1-based position in the import, and the original error as `underlying`.
/// - Costs count one write per document (operation kind `import`); `documents.changed` is published once per
///   chunk; listeners see the changes like any other commit's. Within a chunk, documents are written (and listed
///   in the change log) in path order; a repeated id keeps its last data.
/// - While one chunk commits, the next one is prepared by the engine (`DocumentEngine/prepareCommit(_:)`) and the
///   one after is encoded; chunks commit one after the other, in order. A commit failure surfaces from a later
///   ``add(id:data:)`` or from ``finish()``, and every later call fails with it; the chunks after the failed one
///   are not committed.
///
/// No snapshots are built: the import returns only counts.
public final class DocumentImporter: Sendable {
    /// The collection documents go into.
    public let collection: CollectionReference
    /// Documents per atomic commit.
    public let chunkSize: Int
    /// Bytes of bodies and index keys that close a chunk before it has ``chunkSize`` documents: at most three chunks
    /// are in memory, so large documents (up to ``DocumentLimits/maximumDocumentSize`` each) do not make an import
    /// hold gigabytes.
    public let maximumChunkBytes: Int

    private let store: DocumentStore
    private let collectionPath: String
    private let collectionID: String
    private let pathPrefix: String
    private let nestingAllowed: Bool
    private let onCommit: (@Sendable (Int) -> Void)?

    /// The documents of the chunk being filled: paths, bodies and their index entries in one flat batch.
    private struct Chunk {
        var paths: [String] = []
        var bodies: [[UInt8]] = []
        var bodyBytes = 0
        var entries = IndexEntryBatch()
        var count: Int { paths.count }
        var bytes: Int { bodyBytes + entries.keyBytes }
    }

    private struct State {
        var pending = Chunk()
        var declared: [IndexDefinition]?
        var added = 0
        var committed = 0
        var slowestCommit = Duration.zero
        /// The last chunk launched (it waits for the one before it, so awaiting it awaits all of them).
        var inFlight: Task<Void, any Error>?
        /// The chunk launched before it, still being committed; a launch waits for it, so that at most two chunks
        /// are on their way (one preparing, one committing) while the next one fills.
        var older: Task<Void, any Error>?
        var finished = false
        /// A chunk's commit failure: every later call fails with it.
        var failure: (any Error)?
    }
    private let state = Mutex(State())
    /// Serializes chunk launches so that chunks commit one after the other, in order.
    private let launchGate = AsyncGate()

    init(
        store: DocumentStore, collection: CollectionReference, chunkSize: Int, maximumChunkBytes: Int,
        onCommit: (@Sendable (Int) -> Void)?
    ) {
        self.maximumChunkBytes = max(1, maximumChunkBytes)
        self.store = store
        self.collection = collection
        self.chunkSize = max(1, chunkSize)
        self.collectionPath = collection.path.string
        self.collectionID = collection.path.collectionID
        self.pathPrefix = collection.path.string + "/"
        self.nestingAllowed = collection.path.segments.count + 1 <= PathSegments.maximumSegments
        self.onCommit = onCommit
    }

    /// Documents added so far (including any not committed yet).
    public var addedCount: Int { state.withLock { $0.added } }

    /// Documents committed so far.
    public var committedCount: Int { state.withLock { $0.committed } }

    /// The longest a chunk's commit took so far (from the engine's `commit` call to its return, waits for the
    /// engine's background index merges included); `suite docs import` prints it.
    public var slowestCommit: Duration { state.withLock { $0.slowestCommit } }

    /// Adds one document; commits a chunk when ``chunkSize`` documents are pending.
    ///
    /// Throws when the document is invalid (bad id, limits), with its 1-based position in the import, or when an
    /// earlier chunk's commit failed.
    public func add(id: String?, data: DocumentData) async throws {
        let (position, declared) = try await begin()
        let path: String
        let body: [UInt8]
        do {
            (path, body) = try prepare(id: id, data: data)
        } catch {
            // The chunks before the bad document stay imported: let the one in flight land first.
            try? await drainInFlight()
            throw Self.positioned(error, position: position, id: id)
        }
        let full = state.withLock { state -> Chunk? in
            // Each chunk gets its own batch, index-name strings included: strings shared with the chunk the engine
            // is committing on another thread would have their reference counts bounce between the two cores.
            state.pending.paths.append(path)
            state.pending.bodies.append(body)
            state.pending.bodyBytes += body.count
            IndexPolicy.appendEntries(
                for: data, path: path, collectionPath: collectionPath, collectionID: collectionID, declared: declared,
                into: &state.pending.entries)
            guard state.pending.count >= chunkSize || state.pending.bytes >= maximumChunkBytes else { return nil }
            let chunk = state.pending
            state.pending = Chunk()
            state.pending.paths.reserveCapacity(chunkSize)
            state.pending.bodies.reserveCapacity(chunkSize)
            state.pending.entries.reserveCapacity(entries: chunk.entries.entryCount, keyBytes: chunk.entries.keyBytes)
            state.declared = nil
            return chunk
        }
        if let full { try await launch(full) }
    }

    /// Commits the pending documents and waits for every chunk; returns the number of documents imported.
    @discardableResult
    public func finish() async throws -> Int {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        let rest = state.withLock { state -> Chunk in
            let chunk = state.pending
            state.pending = Chunk()
            state.finished = true
            return chunk
        }
        if rest.count > 0 { try await launch(rest) }
        try await drainInFlight()
        return committedCount
    }

    /// Stops the import: drops the documents not committed yet and waits for the chunk being committed, if any
    /// (its failure is ignored). Call it when the input turns out bad, before closing the store.
    public func abandon() async {
        state.withLock { state in
            state.pending = Chunk()
            state.finished = true
        }
        try? await drainInFlight()
    }

    // MARK: Internals

    /// Counts the document and returns its position, plus the declared indexes (loaded once per chunk).
    private func begin() async throws -> (Int, [IndexDefinition]) {
        let (position, declared) = state.withLock { state -> (Int, [IndexDefinition]?) in
            state.added += 1
            return (state.added, state.declared)
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        if state.withLock({ $0.finished }) {
            throw DocumentsError(.invalidValue, "the import is finished", hint: "create a new importer")
        }
        if let declared { return (position, declared) }
        let loaded = try await store.indexes()
        state.withLock { $0.declared = loaded }
        return (position, loaded)
    }

    /// The document's path and body, validated.
    private func prepare(id: String?, data: DocumentData) throws -> (path: String, body: [UInt8]) {
        let documentID: String
        if let id {
            try PathSegments.validate(id: id, kind: "document")
            documentID = id
        } else {
            documentID = AutoID.generate()
        }
        guard nestingAllowed else {
            throw DocumentsError(
                .invalidPath, "the path would have more than \(PathSegments.maximumSegments) segments",
                hint: "nest collections less deeply")
        }
        let path = pathPrefix + documentID
        let body = ValueCodec.encode(data)
        try store.limits.validate(data, encodedSize: body.count)
        return (path, body)
    }

    /// Waits for the chunk being committed, if any.
    private func drainInFlight() async throws {
        await launchGate.lock()
        defer { launchGate.unlock() }
        try await takeInFlight()?.value
    }

    private func takeInFlight() -> Task<Void, any Error>? {
        state.withLock { state in
            defer {
                state.inFlight = nil
                state.older = nil
            }
            return state.inFlight
        }
    }

    /// Starts preparing and committing `chunk`. Chunks commit one after the other, in order; while one writes, the
    /// next is prepared by the engine (``DocumentEngine/prepareCommit(_:)``) and the one after fills.
    private func launch(_ chunk: Chunk) async throws {
        // Path order: the engine's document inserts walk its b-tree in order instead of jumping around. Repeated ids
        // keep their order (the last one wins).
        let order = Self.pathOrder(chunk.paths, sharedPrefix: pathPrefix.utf8.count)
        let puts = try BulkPuts(
            paths: order.map { chunk.paths[$0] }, bodies: order.map { chunk.bodies[$0] },
            entries: chunk.entries.reordered(order))
        // One launch at a time (producers may add concurrently). At most three chunks are in memory: one committing,
        // one being prepared, one filling.
        await launchGate.lock()
        defer { launchGate.unlock() }
        let older = state.withLock { $0.older }
        do {
            try await older?.value
        } catch {
            state.withLock { $0.failure = error }
            throw error
        }
        let engine = store.engine
        // The launch gate is held: no other launch reads or replaces `inFlight` meanwhile.
        let previous = state.withLock { $0.inFlight }
        let task = Task { [self] in
            let prepared = try await engine.prepareCommit(puts)
            // In order: after the chunk before (whose failure fails this one, uncommitted).
            try await previous?.value
            let started = ContinuousClock.now
            let count = try await store.commitImportChunk(prepared, collectionID: collectionID)
            let took = ContinuousClock.now - started
            let total = state.withLock { state -> Int in
                state.committed += count
                state.slowestCommit = max(state.slowestCommit, took)
                return state.committed
            }
            onCommit?(total)
        }
        state.withLock { launched in
            launched.older = previous
            launched.inFlight = task
        }
    }

    /// The positions of `paths` (which all start with the same `sharedPrefix` bytes) in path order, equal paths in
    /// their given order. Sorts integers: the eight bytes after the shared prefix (big-endian, so they order like
    /// the bytes), and compares whole paths only when those are equal.
    static func pathOrder(_ paths: [String], sharedPrefix: Int) -> [Int] {
        struct Key {
            var head: UInt64
            var position: Int
        }
        var keys: [Key] = []
        keys.reserveCapacity(paths.count)
        for (position, path) in paths.enumerated() {
            var head: UInt64 = 0
            var taken = 0
            for byte in path.utf8.dropFirst(sharedPrefix).prefix(8) {
                head = head << 8 | UInt64(byte)
                taken += 1
            }
            keys.append(Key(head: head << (8 * UInt64(8 - taken)), position: position))
        }
        keys.sort { a, b in
            if a.head != b.head { return a.head < b.head }
            let order = UTF8Order.compare(paths[a.position], paths[b.position])
            return order != 0 ? order < 0 : a.position < b.position
        }
        return keys.map(\.position)
    }

    private static func positioned(_ error: any Error, position: Int, id: String?) -> any Error {
        let which = id.map { "document \(position) ('\($0)')" } ?? "document \(position)"
        if let error = error as? DocumentsError {
            return DocumentsError(error.code, "\(which): \(error.message)", hint: error.hint, underlying: error)
        }
        return DocumentsError(.invalidValue, "\(which): \(error)", underlying: error)
    }
}

extension DocumentStore {
    /// A streaming bulk importer into `collection`: ``DocumentImporter/add(id:data:)`` each document, then
    /// ``DocumentImporter/finish()``. See ``DocumentImporter`` for the semantics (chunks are atomic, the import is
    /// not).
    /// - Parameters:
    ///   - collection: the collection the documents go into.
    ///   - chunkSize: documents per atomic commit (5,000 by default; larger chunks write faster, use more memory).
    ///   - maximumChunkBytes: bytes of bodies and index keys that close a chunk early (64 MiB by default).
    ///   - onCommit: called after each chunk commits, with the total number of documents committed so far.
    public func importer(
        into collection: CollectionReference, chunkSize: Int = 5000, maximumChunkBytes: Int = 64 << 20,
        onCommit: (@Sendable (Int) -> Void)? = nil
    ) -> DocumentImporter {
        DocumentImporter(
            store: self, collection: collection, chunkSize: chunkSize, maximumChunkBytes: maximumChunkBytes,
            onCommit: onCommit)
    }

    /// Imports `documents` into `collection` (set semantics, `nil` id = automatic id) in atomic chunks of
    /// `chunkSize`; returns the number imported. The import as a whole is not atomic (see ``DocumentImporter``).
    @discardableResult
    public func importDocuments(
        into collection: CollectionReference, _ documents: some Sequence<(id: String?, data: DocumentData)>,
        chunkSize: Int = 5000, onCommit: (@Sendable (Int) -> Void)? = nil
    ) async throws -> Int {
        let importer = importer(into: collection, chunkSize: chunkSize, onCommit: onCommit)
        for document in documents {
            try await importer.add(id: document.id, data: document.data)
        }
        return try await importer.finish()
    }

    /// Commits one import chunk: blind puts, costs, bus event, listeners. Returns the number of documents.
    func commitImportChunk(_ prepared: PreparedCommit, collectionID: String) async throws -> Int {
        let mutations = prepared.mutations
        let result = try await engine.commit(prepared, commitTime: nowMicroseconds)
        recordCost(kind: "import", collection: collectionID, CostCounts(writes: Int64(mutations.count)))
        if let events {
            var seen = Set<String>(minimumCapacity: mutations.count)
            var paths: [String] = []
            paths.reserveCapacity(mutations.count)
            for mutation in mutations where seen.insert(mutation.path).inserted { paths.append(mutation.path) }
            events.publish(
                DocumentsChanged(
                    payload: .init(sequence: result.sequence, paths: paths, deletedPaths: [], kind: "import")))
        }
        knownSequence.max(result.sequence, ordering: .relaxed)
        feed.notifyCommit()
        return mutations.count
    }
}
