import Synchronization

/// A ``DocumentEngine`` that keeps everything in memory: for tests, previews and caches. Nothing survives the process.
///
/// All state sits behind one `Mutex`; every operation is a short critical section, so commits are atomic and
/// serialised, and reads see whole commits only. Index entries live in sorted lists (binary search, then an ordered
/// walk), documents in per-collection and per-collection-group sorted lists, so scans and listings never look at
/// unrelated data.
///
/// ```swift
/// let engine = InMemoryDocumentEngine()
/// let result = try await engine.commit([DocumentMutation(path: "users/u1", kind: .put(body: body, indexEntries: []))],
///                                      commitTime: now)
/// ```
public final class InMemoryDocumentEngine: Sendable {
    let state = Mutex(State())

    /// Creates an empty engine.
    public init() {}
}

// MARK: - State

extension InMemoryDocumentEngine {
    struct Record {
        var document: StoredDocument
        var entries: [IndexEntry]
    }

    /// A path with its ``EnginePath/nameKey(_:)``; ordered by the key.
    struct NamedPath: Comparable {
        var key: [UInt8]
        var path: String
        init(_ path: String) {
            self.key = EnginePath.nameKey(path)
            self.path = path
        }
        init(key: [UInt8]) {
            self.key = key
            self.path = ""
        }
        static func < (a: Self, b: Self) -> Bool { compareBytes(a.key, b.key) < 0 }
        static func == (a: Self, b: Self) -> Bool { a.key == b.key }
    }

    /// One index row: ordered by key bytes, then path bytes.
    struct IndexRow: Comparable {
        var key: [UInt8]
        var path: String
        static func < (a: Self, b: Self) -> Bool {
            let c = compareBytes(a.key, b.key)
            return c != 0 ? c < 0 : compareUTF8(a.path, b.path) < 0
        }
        static func == (a: Self, b: Self) -> Bool { a.key == b.key && compareUTF8(a.path, b.path) == 0 }
    }

    struct State {
        var documents = ExactKeyDictionary<Record>()
        /// By parent collection path.
        var collections = ExactKeyDictionary<SortedList<NamedPath>>()
        /// By collection ID.
        var groups = ExactKeyDictionary<SortedList<NamedPath>>()
        var indexes = ExactKeyDictionary<SortedList<IndexRow>>()
        var changes: [ChangeRecord] = []
        var lastSequence: Int64 = 0
        var metadata: [String: [UInt8]] = [:]

        mutating func addEntries(_ entries: [IndexEntry], path: String) {
            for entry in entries {
                indexes[entry.index, default: SortedList()].insert(IndexRow(key: entry.key, path: path))
            }
        }

        mutating func removeEntries(_ entries: [IndexEntry], path: String) {
            for entry in entries {
                indexes[entry.index]?.remove(IndexRow(key: entry.key, path: path))
                if indexes[entry.index]?.isEmpty == true { indexes[entry.index] = nil }
            }
        }
    }

    private struct Prepared {
        var parts: EnginePath.Parts
        var entries: [IndexEntry]
    }
}

// MARK: - DocumentEngine

extension InMemoryDocumentEngine: DocumentEngine {
    /// Applies the mutations atomically; see ``DocumentEngine/commit(_:commitTime:)``.
    ///
    /// Mutations apply in order: a later mutation of the same path sees (and its precondition checks) the earlier
    /// one's result; the change log gets one record per distinct path, with its final state. An empty commit writes
    /// nothing and returns the current last sequence.
    @_spi(Engine) public func commit(_ mutations: [DocumentMutation], commitTime: Int64) async throws -> CommitResult {
        // Validate and canonicalise outside the lock.
        let prepared = try Self.prepare(mutations)
        return try state.withLock { state in
            if mutations.isEmpty { return CommitResult(sequence: state.lastSequence, documents: []) }
            let sequence = state.lastSequence + 1
            try Self.checkPreconditions(mutations, sequence: sequence, state: state)
            // Checks write nothing: a commit of checks only leaves the state as it is.
            let split = CommitChecks(mutations)
            if split.writes.isEmpty {
                return CommitResult(
                    sequence: state.lastSequence, documents: Array(repeating: nil, count: mutations.count))
            }
            let results = Self.applyWrites(mutations, prepared, sequence: sequence, commitTime: commitTime, to: &state)
            Self.appendChanges(mutations, results: results, split: split, sequence: sequence, to: &state)
            state.lastSequence = sequence
            return CommitResult(sequence: sequence, documents: results)
        }
    }

    /// The documents at `paths`, in order; `nil` where none exists.
    @_spi(Engine) public func documents(at paths: [String]) async throws -> [StoredDocument?] {
        for path in paths { _ = try EnginePath.split(document: path) }
        return state.withLock { state in paths.map { state.documents[$0]?.document } }
    }

    /// Entries of one index within bounds, in `(key, path)` order or reversed.
    @_spi(Engine) public func scan(_ scan: IndexScan) async throws -> [IndexHit] {
        let limit = scan.limit ?? Int.max
        if limit <= 0 { return [] }
        return state.withLock { state in
            guard let list = state.indexes[scan.index] else { return [] }
            var hits: [IndexHit] = []
            // Rows are ordered by (key, path). The smallest key greater than K is K + [0x00], so every bound is a
            // probe row (key, "") — the empty path sorts first: "key >= K" starts at probe(K), "key > K" at
            // probe(K + [0]); "key <= K" ends before probe(K + [0]), "key < K" before probe(K).
            func position(_ key: [UInt8], bumped: Bool) -> SortedList<IndexRow>.Position {
                list.position(of: IndexRow(key: bumped ? key + [0] : key, path: ""), strict: false)
            }
            let start = scan.lower.map { position($0.key, bumped: !$0.inclusive) } ?? list.startPosition
            let end = scan.upper.map { position($0.key, bumped: $0.inclusive) } ?? list.endPosition
            guard start.chunk < end.chunk || (start.chunk == end.chunk && start.offset < end.offset) else { return [] }
            if scan.reverse {
                list.forEachReversed(before: end) { row in
                    if let lower = scan.lower {
                        let c = compareBytes(row.key, lower.key)
                        if c < 0 || (c == 0 && !lower.inclusive) { return false }
                    }
                    hits.append(IndexHit(key: row.key, path: row.path))
                    return hits.count < limit
                }
            } else {
                list.forEach(from: start) { row in
                    if let upper = scan.upper {
                        let c = compareBytes(row.key, upper.key)
                        if c > 0 || (c == 0 && !upper.inclusive) { return false }
                    }
                    hits.append(IndexHit(key: row.key, path: row.path))
                    return hits.count < limit
                }
            }
            return hits
        }
    }

    /// Documents directly in `collectionPath`, in path order, after `afterPath`, at most `limit`.
    @_spi(Engine) public func documents(inCollection collectionPath: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        _ = try EnginePath.collectionID(ofCollection: collectionPath)
        let limit = limit ?? Int.max
        if limit <= 0 { return [] }
        let start = EnginePath.collectionStart(parent: collectionPath, after: afterPath)
        if start == .none { return [] }
        return state.withLock { state in
            guard let list = state.collections[collectionPath] else { return [] }
            var position = list.startPosition
            if case .afterID(let id) = start {
                position = list.position(
                    of: NamedPath(key: EnginePath.nameKey(collectionPath + "/" + id)), strict: true)
            }
            return Self.collect(list, from: position, limit: limit, state: state)
        }
    }

    /// The collection ids under `parentPath` (the root when nil) that hold a document at any depth.
    @_spi(Engine) public func collectionIDs(under parentPath: String?) async throws -> [String]? {
        let prefix = parentPath.map { $0 + "/" } ?? ""
        let ids = state.withLock { state in
            Set(
                state.collections.keys.compactMap { collection -> Substring? in
                    guard collection.hasPrefix(prefix) else { return nil }
                    return collection.dropFirst(prefix.count).split(separator: "/", maxSplits: 1).first
                })
        }
        return ids.map(String.init).sorted { compareBytes(Array($0.utf8), Array($1.utf8)) < 0 }
    }

    /// Documents of every collection named `collectionID`, in path order, after `afterPath`, at most `limit`.
    @_spi(Engine) public func documents(inCollectionGroup collectionID: String, after afterPath: String?, limit: Int?)
        async throws
        -> [StoredDocument]
    {
        try EnginePath.checkCollectionID(collectionID)
        let limit = limit ?? Int.max
        if limit <= 0 { return [] }
        return state.withLock { state in
            guard let list = state.groups[collectionID] else { return [] }
            let position =
                afterPath.map { list.position(of: NamedPath(key: EnginePath.nameKey($0)), strict: true) }
                ?? list.startPosition
            return Self.collect(list, from: position, limit: limit, state: state)
        }
    }

    /// Change-log records after `sequence`, in order, at most `limit`.
    @_spi(Engine) public func changes(after sequence: Int64, limit: Int) async throws -> [ChangeRecord] {
        if limit <= 0 { return [] }
        return state.withLock { state in
            var low = 0
            var high = state.changes.count
            while low < high {
                let mid = (low + high) >> 1
                if state.changes[mid].sequence <= sequence { low = mid + 1 } else { high = mid }
            }
            return Array(state.changes[low..<min(state.changes.count, low + limit)])
        }
    }

    /// The sequence of the last commit, 0 when nothing was committed.
    @_spi(Engine) public func lastSequence() async throws -> Int64 {
        state.withLock { $0.lastSequence }
    }

    /// Adds index entries to existing documents without changing their version or the change log.
    @_spi(Engine) public func addIndexEntries(_ additions: [IndexAddition]) async throws {
        state.withLock { state in
            for (path, added) in additions.map({ ($0.path, $0.entries) }) {
                guard var record = state.documents[path] else { continue }
                let merged = IndexEntryList.canonical(record.entries + added)
                let (_, new) = IndexEntryList.difference(old: record.entries, new: merged)
                state.addEntries(new, path: path)
                record.entries = merged
                state.documents[path] = record
            }
        }
    }

    /// Removes every entry of `index`.
    @_spi(Engine) public func removeIndex(_ index: String) async throws {
        state.withLock { state in
            guard let list = state.indexes.removeValue(forKey: index) else { return }
            var paths = Set<String>()
            list.forEach(from: list.startPosition) { row in
                paths.insert(row.path)
                return true
            }
            for path in paths {
                state.documents[path]?.entries.removeAll { $0.index == index }
            }
        }
    }

    /// The metadata value stored under `key`, or `nil`.
    @_spi(Engine) public func metadata(forKey key: String) async throws -> [UInt8]? {
        state.withLock { $0.metadata[key] }
    }

    /// Stores or (with `nil`) removes a metadata value.
    @_spi(Engine) public func setMetadata(_ value: [UInt8]?, forKey key: String) async throws {
        state.withLock { $0.metadata[key] = value }
    }

    /// The change log's records (the in-memory engine never prunes it: its horizon stays 0).
    @_spi(Engine) public func changeLogStatus() async throws -> ChangeLogStatus? {
        state.withLock { ChangeLogStatus(records: $0.changes.count, horizon: 0, lastSequence: $0.lastSequence) }
    }

    /// Rewrites a metadata value under the engine's lock.
    @_spi(Engine) public func updateMetadata(
        forKey key: String, _ transform: @escaping @Sendable ([UInt8]?) throws -> [UInt8]?
    ) async throws {
        try state.withLock { state in state.metadata[key] = try transform(state.metadata[key]) }
    }
}

// MARK: - Helpers

extension InMemoryDocumentEngine {
    private static func collect(
        _ list: SortedList<NamedPath>,
        from position: SortedList<NamedPath>.Position,
        limit: Int,
        state: State
    ) -> [StoredDocument] {
        var result: [StoredDocument] = []
        list.forEach(from: position) { named in
            if let record = state.documents[named.path] { result.append(record.document) }
            return result.count < limit
        }
        return result
    }

    /// Each mutation's path split (validated) and, for a put, its index entries made canonical.
    private static func prepare(_ mutations: [DocumentMutation]) throws -> [Prepared] {
        try mutations.map { mutation -> Prepared in
            let parts = try EnginePath.split(document: mutation.path)
            if case .put(_, let entries) = mutation.kind {
                return Prepared(parts: parts, entries: IndexEntryList.canonical(entries))
            }
            return Prepared(parts: parts, entries: [])
        }
    }

    /// Pass 1: checks every precondition, against the state as the earlier mutations of this commit leave it (a
    /// write of this commit gets version `sequence`).
    private static func checkPreconditions(_ mutations: [DocumentMutation], sequence: Int64, state: State) throws {
        if mutations.count == 1 {
            let mutation = mutations[0]
            try mutation.precondition.check(
                path: mutation.path,
                currentVersion: state.documents[mutation.path]?.document.version
            )
            return
        }
        var overlay = ExactKeyDictionary<Int64?>()
        for mutation in mutations {
            if mutation.precondition != .none {
                let current: Int64? =
                    if let shadowed = overlay[mutation.path] { shadowed } else {
                        state.documents[mutation.path]?.document.version
                    }
                try mutation.precondition.check(path: mutation.path, currentVersion: current)
            }
            switch mutation.kind {
            case .delete: overlay[mutation.path] = .some(nil)
            case .put: overlay[mutation.path] = .some(sequence)
            case .check: break
            }
        }
    }

    /// Pass 2: applies the writes in order (checks write nothing); returns the document each mutation leaves, `nil`
    /// for a delete or a check.
    private static func applyWrites(
        _ mutations: [DocumentMutation], _ prepared: [Prepared], sequence: Int64, commitTime: Int64,
        to state: inout State
    ) -> [StoredDocument?] {
        var results: [StoredDocument?] = []
        results.reserveCapacity(mutations.count)
        for (mutation, prep) in zip(mutations, prepared) {
            let path = mutation.path
            switch mutation.kind {
            case .check:
                results.append(nil)
            case .put(let body, _):
                let old = state.documents[path]
                let document = StoredDocument(
                    path: path,
                    body: body,
                    version: sequence,
                    createTime: old?.document.createTime ?? commitTime,
                    updateTime: commitTime
                )
                if let old {
                    let (removed, added) = IndexEntryList.difference(old: old.entries, new: prep.entries)
                    state.removeEntries(removed, path: path)
                    state.addEntries(added, path: path)
                } else {
                    state.addEntries(prep.entries, path: path)
                    let named = NamedPath(path)
                    state.collections[prep.parts.parent, default: SortedList()].insert(named)
                    state.groups[prep.parts.collectionID, default: SortedList()].insert(named)
                }
                state.documents[path] = Record(document: document, entries: prep.entries)
                results.append(document)
            case .delete:
                if let old = state.documents.removeValue(forKey: path) {
                    state.removeEntries(old.entries, path: path)
                    let named = NamedPath(path)
                    state.collections[prep.parts.parent]?.remove(named)
                    if state.collections[prep.parts.parent]?.isEmpty == true {
                        state.collections[prep.parts.parent] = nil
                    }
                    state.groups[prep.parts.collectionID]?.remove(named)
                    if state.groups[prep.parts.collectionID]?.isEmpty == true {
                        state.groups[prep.parts.collectionID] = nil
                    }
                }
                results.append(nil)
            }
        }
        return results
    }

    /// Appends one change-log record per distinct written path, with its final state (`results` has one document
    /// per mutation).
    private static func appendChanges(
        _ mutations: [DocumentMutation], results: [StoredDocument?], split: CommitChecks, sequence: Int64,
        to state: inout State
    ) {
        if split.checks.isEmpty {
            for i in ChangeSlots(mutations).last {
                state.changes.append(ChangeRecord(sequence: sequence, path: mutations[i].path, document: results[i]))
            }
        } else {
            let written = results.indices.filter { if case .check = mutations[$0].kind { false } else { true } }
            for i in ChangeSlots(split.writes).last {
                let position = written[i]
                state.changes.append(
                    ChangeRecord(sequence: sequence, path: mutations[position].path, document: results[position]))
            }
        }
    }
}
