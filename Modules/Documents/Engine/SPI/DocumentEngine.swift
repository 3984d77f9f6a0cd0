package import Foundation

/// A document as an engine stores it: the encoded body plus bookkeeping. Engines never look inside `body`.
@_spi(Engine) public struct StoredDocument: Sendable, Hashable {
    /// The full document path, e.g. `users/u1/orders/o7`.
    public var path: String
    /// The document's fields, encoded by ``ValueCodec``.
    public var body: [UInt8]
    /// The document's version: the change-log sequence of the commit that last wrote it (always > 0).
    public var version: Int64
    /// When the document was created, in microseconds since the Unix epoch.
    public var createTime: Int64
    /// When the document was last written, in microseconds since the Unix epoch.
    public var updateTime: Int64

    public init(path: String, body: [UInt8], version: Int64, createTime: Int64, updateTime: Int64) {
        self.path = path
        self.body = body
        self.version = version
        self.createTime = createTime
        self.updateTime = updateTime
    }
}

/// One entry of a secondary index: engines keep entries sorted by `(index, key, path)`.
///
/// `index` is an opaque name chosen by the store (e.g. `users|points`); `key` is an order-preserving encoding of the
/// indexed value(s) (see ``IndexKey``), compared bytewise (memcmp order).
@_spi(Engine) public struct IndexEntry: Sendable, Hashable {
    public var index: String
    public var key: [UInt8]
    public init(index: String, key: [UInt8]) {
        self.index = index
        self.key = key
    }
}

/// Index entries to add to one existing document (``DocumentEngine/addIndexEntries(_:)``, backfilling an index).
///
/// A list of these, not a dictionary keyed by path: Swift's `String` keys are equal when canonically equivalent, and
/// `"c/\u{E9}"` and `"c/e\u{301}"` are two documents.
@_spi(Engine) public struct IndexAddition: Sendable, Hashable {
    public var path: String
    public var entries: [IndexEntry]
    public init(path: String, entries: [IndexEntry]) {
        self.path = path
        self.entries = entries
    }
}

/// A condition a mutation's document must meet at commit time, or the whole commit fails.
public enum WritePrecondition: Sendable, Hashable {
    /// No condition.
    case none
    /// The document must exist (`true`) or must not (`false`).
    case exists(Bool)
    /// The document must exist with exactly this version.
    case version(Int64)
}

/// One change to one document inside an atomic commit.
@_spi(Engine) public struct DocumentMutation: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// Store `body` (replacing any previous body) and replace the document's index entries with `indexEntries`.
        case put(body: [UInt8], indexEntries: [IndexEntry])
        /// Remove the document and all its index entries. Deleting a missing document is not an error.
        case delete
        /// Write nothing: only check the mutation's precondition, in the commit's atomic step, against the state the
        /// earlier mutations of the commit leave. A transaction checks so every document it read and did not write
        /// (`.version(v)`, or `.exists(false)` for one read as missing). A check appends no change-log record, and
        /// its ``CommitResult/documents`` entry is `nil`; a commit of checks only writes nothing and returns the
        /// current ``DocumentEngine/lastSequence()``.
        case check
    }
    public var path: String
    public var kind: Kind
    public var precondition: WritePrecondition
    public init(path: String, kind: Kind, precondition: WritePrecondition = .none) {
        self.path = path
        self.kind = kind
        self.precondition = precondition
    }
}

/// What a commit produced.
@_spi(Engine) public struct CommitResult: Sendable, Hashable {
    /// The change-log sequence assigned to this commit (every document written gets it as its version).
    public var sequence: Int64
    /// Each mutation's resulting document, in the order given; `nil` for a delete or a check.
    public var documents: [StoredDocument?]
    public init(sequence: Int64, documents: [StoredDocument?]) {
        self.sequence = sequence
        self.documents = documents
    }
}

/// One entry of the change log: a document written (or deleted) by a commit.
@_spi(Engine) public struct ChangeRecord: Sendable, Hashable {
    /// The commit's sequence; several records can share one sequence (one commit, several documents).
    public var sequence: Int64
    public var path: String
    /// The document after the change; `nil` when it was deleted.
    public var document: StoredDocument?
    public init(sequence: Int64, path: String, document: StoredDocument?) {
        self.sequence = sequence
        self.path = path
        self.document = document
    }
}

/// A bound of an index scan.
@_spi(Engine) public struct IndexBound: Sendable, Hashable {
    public var key: [UInt8]
    public var inclusive: Bool
    public init(key: [UInt8], inclusive: Bool) {
        self.key = key
        self.inclusive = inclusive
    }
}

/// A range scan over one index, in key order (then path order), or reversed.
@_spi(Engine) public struct IndexScan: Sendable, Hashable {
    public var index: String
    public var lower: IndexBound?
    public var upper: IndexBound?
    public var reverse: Bool
    /// Stop after this many entries.
    public var limit: Int?
    public init(
        index: String, lower: IndexBound? = nil, upper: IndexBound? = nil, reverse: Bool = false, limit: Int? = nil
    ) {
        self.index = index
        self.lower = lower
        self.upper = upper
        self.reverse = reverse
        self.limit = limit
    }
}

/// What ``DocumentEngine/scanReadingDocuments(_:)`` returns: the hits, and for each the document at its path.
@_spi(Engine) public struct ScannedDocuments: Sendable, Hashable {
    public var hits: [IndexHit]
    /// One per hit, `nil` where the document does not exist.
    public var documents: [StoredDocument?]
    public init(hits: [IndexHit], documents: [StoredDocument?]) {
        self.hits = hits
        self.documents = documents
    }
}

/// One index entry found by a scan.
@_spi(Engine) public struct IndexHit: Sendable, Hashable {
    public var key: [UInt8]
    public var path: String
    public init(key: [UInt8], path: String) {
        self.key = key
        self.path = path
    }
}

/// The storage seam of the Documents module: atomic commits with preconditions, reads by path, ordered index scans and
/// a change log. Engines store opaque bodies and index keys; everything Firestore-like lives above, in the store.
///
/// Every engine, built in or loaded from a plugin, must pass the contract suite in `Tests/DocumentsTests`.
public protocol DocumentEngine: Sendable {
    /// Applies every mutation atomically, or none.
    ///
    /// Fails with ``DocumentsError/Code-swift.struct/preconditionFailed`` if any precondition does not hold, and
    /// changes nothing then. On success the commit is durable before this returns, gets the next change-log sequence
    /// (strictly increasing), and appends one ``ChangeRecord`` per mutated path.
    ///
    /// Contract details every engine follows (the contract suite checks them):
    /// - Mutations apply in order: a later mutation of the same path sees, and its precondition is checked against,
    ///   the earlier one's result. The change log gets one record per *distinct* path written (checks write none), in
    ///   order of first appearance, with the path's final state; ``CommitResult/documents`` has one entry per mutation.
    /// - A put keeps the document's `createTime` if it existed; `updateTime` is `commitTime`; `version` is the
    ///   commit's sequence. A put's index entries are deduplicated. Deleting a missing document still appends a
    ///   record (with `document == nil`).
    /// - A ``DocumentMutation/Kind-swift.enum/check`` is verified atomically with the writes (in the same SQLite
    ///   write transaction, under the same lock), so a commit conditioned on checks is serializable with every other
    ///   commit, from any process. It appends no record; a commit of checks only consumes no sequence.
    /// - An empty commit writes nothing and returns the current ``lastSequence()`` with no documents.
    /// - A path must have an even number (≥ 2) of non-empty `/`-separated segments, or the commit throws
    ///   ``DocumentsError/Code-swift.struct/invalidPath`` (the store validates the rest with `DocumentPath`).
    /// - Parameters:
    ///   - mutations: the commit's writes and checks, applied together or not at all.
    ///   - commitTime: the commit's time in microseconds since the epoch (the store's clock decides).
    @_spi(Engine) func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult

    /// Waits until the engine's background work (index flushes and merges, say) is done. A short-lived process — a
    /// command-line import — calls it before closing, so that it leaves its work finished rather than abandoned.
    /// Engines without background work keep the default, which returns at once.
    @_spi(Engine) func waitForBackgroundWork() async

    /// Ends the engine gracefully: finishes the background work under way instead of throwing it away, leaves its
    /// storage in a state the next process picks up cheaply (the SQLite engine flushes pending index operations past
    /// a small limit), then closes it. Later calls may fail. It suspends the caller and never blocks a thread of
    /// Swift's cooperative pool; calling it twice is harmless. ``DocumentStore/close()`` calls it. Engines with
    /// nothing to finish or close keep the default, which does nothing.
    func shutdown() async

    /// Returns once a commit after `sequence` may have been made — by this process or any other sharing the storage —
    /// or after `timeout`, whichever comes first; it never throws, and returning early is always allowed. Followers of
    /// the change log (listeners, `suite serve`'s sync feed) call it between polls. Engines told of other writers'
    /// commits return at once (the PostgreSQL engine, through `NOTIFY`); the default sleeps for `timeout`.
    @_spi(Engine) func waitForChanges(after sequence: Int64, timeout: Duration) async

    /// What the engine's index maintenance has left to do (see ``IndexMaintenanceStatus``), or `nil` for an engine
    /// that keeps no pending index operations, such as the in-memory one (the default).
    @_spi(Engine) func indexStatus() async throws -> IndexMaintenanceStatus?

    /// The documents at `paths`, in the same order; `nil` where none exists.
    @_spi(Engine) func documents(at paths: [String]) async throws -> [StoredDocument?]

    /// Entries of one index within bounds, sorted by `(key, path)` ascending, or descending when `reverse`.
    ///
    /// Keys compare bytewise (`memcmp`, a prefix before its extensions); entries with equal keys are ordered by the
    /// path's UTF-8 bytes. Bounds apply to the key only. A `limit` of 0 or less returns nothing.
    @_spi(Engine) func scan(_ scan: IndexScan) async throws -> [IndexHit]

    /// The same hits as ``scan(_:)`` with each hit's document read in the same step (`nil` where none exists), for
    /// engines where a second call costs a round trip (a database server, a plugin): a query then reads its index and
    /// its documents at once. Returns `nil` (the default) when the engine does not; the store then scans, then reads.
    @_spi(Engine) func scanReadingDocuments(_ scan: IndexScan) async throws -> ScannedDocuments?

    /// The ids of the collections directly under the document `parentPath` (under the root when `nil`) that hold a
    /// document at any depth, sorted bytewise — Firestore's `listCollections`. `nil` (the default) when the engine
    /// cannot list them; browsing then needs the collection's path.
    @_spi(Engine) func collectionIDs(under parentPath: String?) async throws -> [String]?

    /// Documents whose path is a direct child of collection `collectionPath` (e.g. `users` or `users/u1/orders`),
    /// in path order, starting after `afterPath` when given, at most `limit`.
    ///
    /// "Path order" is Firestore's document-name order: segment by segment, each segment by its UTF-8 bytes, a path
    /// before the paths it is a prefix of (so `a/x/…` comes before `a-b/…`). Within one collection that is the
    /// bytewise order of document IDs. `afterPath` may be any path: documents after it in that order are returned.
    @_spi(Engine) func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]

    /// Documents of every collection whose last segment is `collectionID` (a collection-group scan), in path order
    /// (document-name order, as above), starting after `afterPath` when given, at most `limit`.
    @_spi(Engine) func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]

    /// Change-log records with a sequence greater than `sequence`, in sequence order, at most `limit`.
    ///
    /// An engine that prunes its log throws ``DocumentsError/Code-swift.struct/resyncRequired`` when `sequence` is
    /// before its retained horizon (``changeLogStatus()``): some changes after it are gone.
    @_spi(Engine) func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord]

    /// The change log's size and retained horizon, or `nil` for an engine that does not report it (the default).
    @_spi(Engine) func changeLogStatus() async throws -> ChangeLogStatus?

    /// The sequence of the last commit, 0 for an empty store.
    @_spi(Engine) func lastSequence() async throws -> Int64

    /// Adds index entries to existing documents (backfilling a newly declared index) without changing their version
    /// or appending to the change log. Entries for paths that no longer exist are ignored. Atomic.
    @_spi(Engine) func addIndexEntries(_ additions: [IndexAddition]) async throws

    /// Removes every entry of `index` (dropping a declared index).
    @_spi(Engine) func removeIndex(_ index: String) async throws

    /// Compares every selected index with the entries its documents keep of their own (each document stores the
    /// entries its last write gave it), in one consistent snapshot and with bounded memory, and reports the
    /// differences: entries a document has that scans miss, and entries scans return that no document has. A healthy
    /// store reports none. Reports at most `maximumReported` differences (``IndexVerification/differenceCount``
    /// counts them all). Engines that cannot keep the default, which throws
    /// ``DocumentsError/Code-swift.struct/unsupported``.
    @_spi(Engine) func verifyIndexes(_ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?)
        async throws -> IndexVerification

    /// Rebuilds every selected index from the entries its documents keep of their own, atomically and with bounded
    /// memory (in chunks): afterwards scans return exactly those entries. Engines that cannot keep the default,
    /// which throws ``DocumentsError/Code-swift.struct/unsupported``.
    @_spi(Engine) func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws
        -> IndexRebuild

    /// A small value the store keeps beside the data (declared indexes, cost counters), or `nil`.
    @_spi(Engine) func metadata(forKey key: String) async throws -> [UInt8]?

    /// Stores (or, with `nil`, removes) a metadata value; durable when this returns.
    @_spi(Engine) func setMetadata(_ value: [UInt8]?, forKey key: String) async throws

    /// Replaces the metadata value under `key` with `transform(current)` (`nil` removes it) atomically: no other
    /// write, from this process or another, comes between the read and the write, so counters kept there (the
    /// store's costs) add up exactly. `transform` may run more than once; its error ends the update, changing nothing.
    ///
    /// The default reads, then writes: atomic only within one process. The SQLite and in-memory engines override it.
    @_spi(Engine) func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?)
        async throws
}

/// Bulk-import plumbing inside this package (not part of the engine API that plugins implement): an engine that does
/// part of a commit ahead of its write. ``DocumentEngine``'s `prepareCommit` and `commit(_:commitTime:)` of a
/// ``PreparedCommit`` call these when the engine conforms, and fall back to plain mutations otherwise.
package protocol CommitPreparing: DocumentEngine {
    /// Prepares a commit ahead of its write.
    func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit

    /// Prepares a bulk commit of unconditional puts whose index entries come in one flat batch.
    func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit

    /// Commits what one of the `prepareCommit` methods prepared.
    func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult
}

/// A commit prepared ahead of its write by ``DocumentEngine/prepareCommit(_:)``: the mutations, plus whatever the
/// engine worked out that needs no database state.
package struct PreparedCommit: Sendable {
    /// The mutations, as given. For ``BulkPuts`` prepared by an engine that keeps their entries in its own form
    /// (``engineWork``), the puts carry no index entries here.
    package var mutations: [DocumentMutation]
    /// The preparing engine's own work (opaque to everyone else; `nil` from engines that prepare nothing). Hand a
    /// prepared commit only to the engine that prepared it: another engine refuses it.
    package var engineWork: (any Sendable)?
    /// The identity of the engine instance that prepared ``engineWork``, which checks it when committing.
    package var preparedBy: UUID?

    /// A prepared commit of `mutations`, with `engineWork` of the engine instance `preparedBy`.
    package init(mutations: [DocumentMutation], engineWork: (any Sendable)? = nil, preparedBy: UUID? = nil) {
        self.mutations = mutations
        self.engineWork = engineWork
        self.preparedBy = preparedBy
    }

    /// The error of an engine handed a commit that another engine prepared.
    package static func wrongEngine(path: String? = nil) -> DocumentsError {
        DocumentsError(
            .wrongEngine,
            "a prepared commit was handed to an engine\(path.map { " ('\($0)')" } ?? "") other than the one that "
                + "prepared it",
            hint: "commit a prepared commit with the engine whose prepareCommit made it")
    }
}

extension DocumentEngine {
    /// Does the part of a commit that needs no database state (say, encoding and sorting index entries) so that a
    /// pipeline — the store's bulk importer — prepares one commit while the previous one writes. Commit the result
    /// with ``commit(_:commitTime:)-(PreparedCommit,_)``. Engines that have nothing to prepare keep this default.
    package func prepareCommit(_ mutations: [DocumentMutation]) async throws -> PreparedCommit {
        if let preparing = self as? any CommitPreparing { return try await preparing.prepareCommit(mutations) }
        return PreparedCommit(mutations: mutations)
    }

    /// Prepares ``BulkPuts/mutations()``: the puts as ordinary mutations, their entries as arrays. Engines that can
    /// take the entries in their flat form override it (the SQLite engine sorts them straight from the batch).
    package func prepareCommit(_ puts: BulkPuts) async throws -> PreparedCommit {
        if let preparing = self as? any CommitPreparing { return try await preparing.prepareCommit(puts) }
        return PreparedCommit(mutations: puts.mutations())
    }

    /// Commits a prepared commit; the same contract as ``commit(_:commitTime:)-(Array<DocumentMutation>,_)``.
    /// An engine that prepares nothing throws ``DocumentsError/Code-swift.struct/wrongEngine`` for a commit carrying
    /// ``PreparedCommit/engineWork``: another engine made it.
    package func commit(_ prepared: PreparedCommit, commitTime: Int64) async throws -> CommitResult {
        if let preparing = self as? any CommitPreparing {
            return try await preparing.commit(prepared, commitTime: commitTime)
        }
        guard prepared.engineWork == nil else { throw PreparedCommit.wrongEngine() }
        return try await commit(prepared.mutations, commitTime: commitTime)
    }

    /// Reads the value, then writes `transform(value)`: not atomic across processes (see the requirement).
    @_spi(Engine) public func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?
    ) async throws {
        try await setMetadata(try transform(try await metadata(forKey: key)), forKey: key)
    }

    /// `nil`: the engine cannot list collection ids.
    @_spi(Engine) public func collectionIDs(under parentPath: String?) async throws -> [String]? { nil }

    /// `nil`: the store scans, then reads the documents.
    @_spi(Engine) public func scanReadingDocuments(_ scan: IndexScan) async throws -> ScannedDocuments? { nil }

    /// Sleeps for `timeout` (or until the task is cancelled): the engine learns of no commit from elsewhere.
    @_spi(Engine) public func waitForChanges(after sequence: Int64, timeout: Duration) async {
        try? await Task.sleep(for: timeout)
    }

    /// Returns at once: the engine has no background work.
    @_spi(Engine) public func waitForBackgroundWork() async {}

    /// Does nothing: the engine has nothing to finish or close.
    public func shutdown() async {}

    /// `nil`: the engine keeps no pending index operations.
    @_spi(Engine) public func indexStatus() async throws -> IndexMaintenanceStatus? { nil }

    /// `nil`: the engine does not report its change log.
    @_spi(Engine) public func changeLogStatus() async throws -> ChangeLogStatus? { nil }

    /// The document at `path`, or `nil`.
    @_spi(Engine) public func document(at path: String) async throws -> StoredDocument? {
        try await documents(at: [path]).first ?? nil
    }
}
