@_spi(Engine) public import Documents
import Synchronization

/// One call of a `DocumentEngine` requirement, as it crosses the plugin ABI: the host encodes it, the plugin decodes
/// it and runs it on its engine.
@_spi(Engine) public enum DocumentEngineRequest: Sendable, Hashable {
    /// `DocumentEngine/commit(_:commitTime:)`.
    case commit([DocumentMutation], commitTime: Int64)
    /// `DocumentEngine/documents(at:)`.
    case get([String])
    /// `DocumentEngine/scan(_:)`.
    case scan(IndexScan)
    /// `DocumentEngine/documents(inCollection:after:limit:)`.
    case list(collection: String, after: String?, limit: Int?)
    /// `DocumentEngine/documents(inCollectionGroup:after:limit:)`.
    case listGroup(collectionID: String, after: String?, limit: Int?)
    /// `DocumentEngine/changes(after:limit:)`.
    case changes(after: Int64, limit: Int)
    /// `DocumentEngine/lastSequence()`.
    case lastSequence
    /// `DocumentEngine/addIndexEntries(_:)`.
    case addIndexEntries([IndexAddition])
    /// `DocumentEngine/removeIndex(_:)`.
    case removeIndex(String)
    /// `DocumentEngine/metadata(forKey:)`.
    case metadata(key: String)
    /// `DocumentEngine/setMetadata(_:forKey:)`.
    case setMetadata([UInt8]?, key: String)
    /// `DocumentEngine/waitForChanges(after:timeout:)`, the timeout in microseconds.
    case waitForChanges(after: Int64, timeoutMicroseconds: Int64)
    /// Sets `key` to `new` (`nil` removes it) if its value is `expected` (`nil`: absent), atomically.
    case compareAndSetMetadata(key: String, expected: [UInt8]?, new: [UInt8]?)
    /// `DocumentEngine/shutdown()`.
    case shutdown
    /// `DocumentEngine/scanReadingDocuments(_:)`.
    case scanDocuments(IndexScan)
    /// `DocumentEngine/collectionIDs(under:)`.
    case collectionIDs(parent: String?)
    /// `DocumentEngine/changeLogStatus()`.
    case changeLogStatus
    /// The engine's index names (see ``DocumentEngineOperation/indexNames``).
    case indexNames
    /// `DocumentEngine/verifyIndexes(_:maximumReported:progress:)` of the indexes `names` (`nil`: every index).
    case verifyIndexes(names: [String]?, maximumReported: Int)
    /// `DocumentEngine/rebuildIndexes(_:progress:)` of the indexes `names` (`nil`: every index).
    case rebuildIndexes(names: [String]?)
    /// Prepares the commit of `mutations` ahead of its write; answered with a handle (``DocumentEngineResponse/prepared(_:)``).
    case prepareCommit([DocumentMutation])
    /// Commits the commit prepared as `handle`.
    case commitPrepared(handle: Int64, commitTime: Int64)

    /// The operation this request is sent as.
    public var operation: DocumentEngineOperation {
        switch self {
        case .commit: .commit
        case .get: .get
        case .scan: .scan
        case .list: .list
        case .listGroup: .listGroup
        case .changes: .changes
        case .lastSequence: .lastSequence
        case .addIndexEntries: .addIndexEntries
        case .removeIndex: .removeIndex
        case .metadata: .metadata
        case .setMetadata: .setMetadata
        case .waitForChanges: .waitChanges
        case .compareAndSetMetadata: .compareAndSetMetadata
        case .shutdown: .shutdown
        case .scanDocuments: .scanDocuments
        case .collectionIDs: .collectionIDs
        case .changeLogStatus: .changeLogStatus
        case .indexNames: .indexNames
        case .verifyIndexes: .verifyIndexes
        case .rebuildIndexes: .rebuildIndexes
        case .prepareCommit: .prepareCommit
        case .commitPrepared: .commitPrepared
        }
    }

    /// Runs the request on `engine` and returns its outcome. Any error becomes a ``DocumentEngineResponse/failure(_:)``
    /// (a `DocumentsError` keeps its code; another error becomes `.storage`), so the caller always gets a response.
    public func run(on engine: some DocumentEngine) async -> DocumentEngineResponse {
        await run(on: engine, prepared: nil)
    }

    /// Runs the request on `engine`, keeping prepared commits in `prepared` (without one, `prepareCommit` is
    /// unsupported).
    func run(on engine: some DocumentEngine, prepared: PreparedCommits?) async -> DocumentEngineResponse {
        do {
            switch self {
            case .commit(let mutations, let commitTime):
                return .commit(try await engine.commit(mutations, commitTime: commitTime))
            case .get(let paths):
                return .documents(try await engine.documents(at: paths))
            case .scan(let scan):
                return .hits(try await engine.scan(scan))
            case .list(let collection, let after, let limit):
                return .listed(try await engine.documents(inCollection: collection, after: after, limit: limit))
            case .listGroup(let collectionID, let after, let limit):
                return .listed(try await engine.documents(inCollectionGroup: collectionID, after: after, limit: limit))
            case .changes(let after, let limit):
                return .changes(try await engine.changes(after: after, limit: limit))
            case .lastSequence:
                return .sequence(try await engine.lastSequence())
            case .addIndexEntries(let entries):
                try await engine.addIndexEntries(entries)
                return .done
            case .removeIndex(let index):
                try await engine.removeIndex(index)
                return .done
            case .metadata(let key):
                return .metadata(try await engine.metadata(forKey: key))
            case .setMetadata(let value, let key):
                try await engine.setMetadata(value, forKey: key)
                return .done
            case .waitForChanges(let after, let timeout):
                await engine.waitForChanges(after: after, timeout: .microseconds(max(0, min(timeout, 60_000_000))))
                return .done
            case .compareAndSetMetadata(let key, let expected, let new):
                return .flag(try await Self.compareAndSet(key, expected: expected, new: new, on: engine))
            case .shutdown:
                await engine.shutdown()
                return .done
            case .scanDocuments(let scan):
                if let scanned = try await engine.scanReadingDocuments(scan) { return .scanned(scanned) }
                let hits = try await engine.scan(scan)
                let documents = try await engine.documents(at: hits.map(\.path))
                return .scanned(ScannedDocuments(hits: hits, documents: documents))
            case .collectionIDs(let parent):
                guard let ids = try await engine.collectionIDs(under: parent) else {
                    throw DocumentsError(.unsupported, "this documents engine cannot list collections")
                }
                return .names(ids)
            case .changeLogStatus:
                guard let status = try await engine.changeLogStatus() else {
                    throw DocumentsError(.unsupported, "this documents engine does not report its change log")
                }
                return .changeLog(status)
            case .indexNames:
                return .names(try await Self.indexNames(of: engine))
            case .verifyIndexes(let names, let maximumReported):
                return .verification(
                    try await engine.verifyIndexes(
                        Self.selection(names), maximumReported: maximumReported, progress: nil))
            case .rebuildIndexes(let names):
                return .rebuild(try await engine.rebuildIndexes(Self.selection(names), progress: nil))
            case .prepareCommit(let mutations):
                guard let prepared else {
                    throw DocumentsError(.unsupported, "this documents engine plugin does not prepare commits")
                }
                return .prepared(prepared.keep(try await engine.prepareCommit(mutations)))
            case .commitPrepared(let handle, let commitTime):
                guard let commit = prepared?.take(handle) else { throw PreparedCommits.unknown(handle) }
                return .commit(try await engine.commit(commit, commitTime: commitTime))
            }
        } catch let error as DocumentsError {
            return .failure(error)
        } catch {
            return .failure(DocumentsError(.storage, "\(error)", underlying: error))
        }
    }
}

extension DocumentEngineRequest {
    private struct Mismatch: Error {}

    /// Sets `key` to `new` if its value is `expected`, through the engine's own atomic
    /// `DocumentEngine/updateMetadata(forKey:_:)`.
    static func compareAndSet(_ key: String, expected: [UInt8]?, new: [UInt8]?, on engine: some DocumentEngine)
        async throws -> Bool
    {
        do {
            try await engine.updateMetadata(forKey: key) { current in
                guard current == expected else { throw Mismatch() }
                return new
            }
            return true
        } catch is Mismatch {
            return false
        }
    }
}

extension DocumentEngineRequest {
    /// The selection of the indexes `names`, or of every index.
    static func selection(_ names: [String]?) -> IndexSelection {
        names.map { IndexSelection.named(Set($0)) } ?? .all
    }

    /// The names of `engine`'s indexes: those its verification is asked about, through a selection that takes none
    /// (so the engine checks nothing).
    static func indexNames(of engine: some DocumentEngine) async throws -> [String] {
        let seen = SeenNames()
        let probe = IndexSelection { name in
            seen.names.withLock { _ = $0.insert(name) }
            return false
        }
        _ = try await engine.verifyIndexes(probe, maximumReported: 0, progress: nil)
        return seen.names.withLock { $0.sorted() }
    }

    private final class SeenNames: Sendable {
        let names = Mutex<Set<String>>([])
    }
}

/// The outcome of a ``DocumentEngineRequest``: a value of the shape its operation returns, or a failure.
@_spi(Engine) public enum DocumentEngineResponse: Sendable {
    /// `commit`'s result.
    case commit(CommitResult)
    /// `get`'s documents, one per requested path.
    case documents([StoredDocument?])
    /// `scan`'s hits.
    case hits([IndexHit])
    /// `list` and `listGroup`'s documents.
    case listed([StoredDocument])
    /// `changes`' records.
    case changes([ChangeRecord])
    /// `lastSequence`'s value.
    case sequence(Int64)
    /// `metadata`'s value.
    case metadata([UInt8]?)
    /// Success without a value: `addIndexEntries`, `removeIndex`, `setMetadata`, `waitChanges`, `shutdown`.
    case done
    /// `compareAndSetMetadata`'s answer: whether the value was replaced.
    case flag(Bool)
    /// `scanDocuments`' hits, each with its document.
    case scanned(ScannedDocuments)
    /// `collectionIDs`' ids and `indexNames`' names.
    case names([String])
    /// `changeLogStatus`'s status.
    case changeLog(ChangeLogStatus)
    /// `verifyIndexes`' report.
    case verification(IndexVerification)
    /// `rebuildIndexes`' report.
    case rebuild(IndexRebuild)
    /// `prepareCommit`'s handle, for `commitPrepared`.
    case prepared(Int64)
    /// The engine threw; the code, message and hint cross the boundary (the underlying error does not).
    case failure(DocumentsError)
}
