@_spi(Engine) import Documents
import Synchronization

/// An engine over a real one whose query reads (or point reads) can be held at a gate: the test closes the gate,
/// starts reads, waits until the engine holds the expected number of them, and opens the gate — with an error, to
/// make every held read fail. This is how tests make calls overlap without timing.
final class GatedDocumentEngine: DocumentEngine {
    /// The reads the gate holds.
    enum Reads: Sendable {
        /// Index scans and collection scans: what queries read.
        case queries
        /// Reads of documents by path: what `getDocument` reads.
        case points
    }

    private struct State {
        var closed = false
        var failure: (any Error)?
        var held: [CheckedContinuation<Void, Never>] = []
        var heldTotal = 0
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let inner: any DocumentEngine
    let gated: Reads
    private let state = Mutex(State())

    init(_ inner: any DocumentEngine, gating gated: Reads = .queries) {
        self.inner = inner
        self.gated = gated
    }

    /// Holds the gated reads from now on.
    func close() { state.withLock { $0.closed = true } }

    /// Lets every held read (and later ones) go on; with `failure`, they throw it instead.
    func open(failing failure: (any Error)? = nil) {
        let held = state.withLock { state in
            state.closed = false
            state.failure = failure
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Waits until the gate has held `count` reads in all since the engine was made.
    func waitUntilHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.heldTotal >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Reads held in all.
    var heldTotal: Int { state.withLock { $0.heldTotal } }

    private func pass(_ kind: Reads) async throws {
        guard kind == gated else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (goOn, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.closed else { return (true, []) }
                state.held.append(continuation)
                state.heldTotal += 1
                let total = state.heldTotal
                let ready = state.watchers.filter { $0.count <= total }.map(\.continuation)
                state.watchers.removeAll { $0.count <= total }
                return (false, ready)
            }
            for watcher in ready { watcher.resume() }
            if goOn { continuation.resume() }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }

    func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        try await inner.commit(mutations, commitTime: commitTime)
    }
    func waitForBackgroundWork() async { await inner.waitForBackgroundWork() }
    func shutdown() async { await inner.shutdown() }
    func waitForChanges(after sequence: Int64, timeout: Duration) async {
        await inner.waitForChanges(after: sequence, timeout: timeout)
    }
    func indexStatus() async throws -> IndexMaintenanceStatus? { try await inner.indexStatus() }
    func documents(at paths: [String]) async throws -> [StoredDocument?] {
        try await pass(.points)
        return try await inner.documents(at: paths)
    }
    func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        try await pass(.queries)
        return try await inner.scan(scan)
    }
    func scanReadingDocuments(_ scan: IndexScan) async throws -> ScannedDocuments? {
        try await pass(.queries)
        return try await inner.scanReadingDocuments(scan)
    }
    func collectionIDs(under parentPath: String?) async throws -> [String]? {
        try await inner.collectionIDs(under: parentPath)
    }
    func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        try await pass(.queries)
        return try await inner.documents(inCollection: collectionPath, after: afterPath, limit: limit)
    }
    func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?) async throws
        -> [StoredDocument]
    {
        try await pass(.queries)
        return try await inner.documents(inCollectionGroup: collectionID, after: afterPath, limit: limit)
    }
    func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        try await inner.changes(after: sequence, limit: limit)
    }
    func changeLogStatus() async throws -> ChangeLogStatus? { try await inner.changeLogStatus() }
    func lastSequence() async throws -> Int64 { try await inner.lastSequence() }
    func addIndexEntries(_ additions: [IndexAddition]) async throws { try await inner.addIndexEntries(additions) }
    func removeIndex(_ index: String) async throws { try await inner.removeIndex(index) }
    func verifyIndexes(_ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?)
        async throws -> IndexVerification
    {
        try await inner.verifyIndexes(selection, maximumReported: maximumReported, progress: progress)
    }
    func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws -> IndexRebuild {
        try await inner.rebuildIndexes(selection, progress: progress)
    }
    func metadata(forKey key: String) async throws -> [UInt8]? { try await inner.metadata(forKey: key) }
    func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        try await inner.setMetadata(value, forKey: key)
    }
    func updateMetadata(forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?)
        async throws
    {
        try await inner.updateMetadata(forKey: key, transform)
    }
}
