/// Which of an engine's indexes ``DocumentEngine/verifyIndexes(_:maximumReported:progress:)`` and
/// ``DocumentEngine/rebuildIndexes(_:progress:)`` work on: every index, or those whose engine name (such as
/// `users|points`) the predicate accepts.
///
/// ```swift
/// let report = try await engine.verifyIndexes(IndexSelection { $0 == "users|points" })
/// ```
public struct IndexSelection: Sendable {
    private let accepts: (@Sendable (String) -> Bool)?
    /// The names of a ``named(_:)`` selection, `nil` for any other: how a selection crosses the plugin ABI without a
    /// round trip to list the engine's indexes first.
    package let names: Set<String>?

    /// Every index.
    public static let all = IndexSelection(nil)

    /// The indexes whose engine name `accepts` returns `true` for.
    public init(_ accepts: (@Sendable (String) -> Bool)?) {
        self.accepts = accepts
        self.names = nil
    }

    private init(names: Set<String>) {
        self.accepts = { names.contains($0) }
        self.names = names
    }

    /// The indexes named in `names`.
    public static func named(_ names: Set<String>) -> IndexSelection {
        IndexSelection(names: names)
    }

    /// Whether the index named `name` is selected.
    public func contains(_ name: String) -> Bool { accepts?(name) ?? true }

    /// Whether every index is selected.
    public var isAll: Bool { accepts == nil }
}

/// One disagreement between a document's own index entries and what index scans return.
public struct IndexDifference: Sendable, Hashable {
    /// Which side has the entry.
    public enum Kind: String, Sendable, Hashable {
        /// The document has the entry; scans do not return it (queries miss the document).
        case missing
        /// Scans return the entry; the document (if any) does not have it (queries return a wrong document).
        case unexpected
    }

    /// Which side has the entry.
    public var kind: Kind
    /// The index's engine name, e.g. `users|points`.
    public var index: String
    /// The entry's key (see `IndexKey`).
    public var key: [UInt8]
    /// The document path of the entry.
    public var path: String

    /// A difference with these values.
    public init(kind: Kind, index: String, key: [UInt8], path: String) {
        self.kind = kind
        self.index = index
        self.key = key
        self.path = path
    }
}

/// What ``DocumentEngine/verifyIndexes(_:maximumReported:progress:)`` found.
public struct IndexVerification: Sendable, Hashable {
    /// The indexes checked.
    public var indexes: Int
    /// The entries the documents hold in those indexes.
    public var entries: Int
    /// How many differences there are in all (``differences`` lists at most the number asked for).
    public var differenceCount: Int
    /// The first differences found.
    public var differences: [IndexDifference]

    /// Whether scans return exactly the documents' own entries.
    public var isConsistent: Bool { differenceCount == 0 }

    /// A report with these values.
    public init(indexes: Int, entries: Int, differenceCount: Int, differences: [IndexDifference]) {
        self.indexes = indexes
        self.entries = entries
        self.differenceCount = differenceCount
        self.differences = differences
    }
}

/// What ``DocumentEngine/rebuildIndexes(_:progress:)`` did.
public struct IndexRebuild: Sendable, Hashable {
    /// The indexes rebuilt.
    public var indexes: Int
    /// The entries written.
    public var entries: Int

    /// A report with these values.
    public init(indexes: Int, entries: Int) {
        self.indexes = indexes
        self.entries = entries
    }
}

/// Called now and then during a long index verification or rebuild with how many of the `total` entries are done
/// (`done` reaches `total` at the end; a verification may pass over the entries several times, counted each time).
public typealias IndexProgressHandler = @Sendable (_ done: Int, _ total: Int) -> Void

extension DocumentEngine {
    /// Compares every selected index with the documents' own entries (see
    /// `verifyIndexes(_:maximumReported:progress:)`), reporting at most 1,000 differences, without progress.
    public func verifyIndexes(_ selection: IndexSelection = .all) async throws -> IndexVerification {
        try await verifyIndexes(selection, maximumReported: 1_000, progress: nil)
    }

    /// Rebuilds every selected index from the documents' own entries (see `rebuildIndexes(_:progress:)`).
    public func rebuildIndexes(_ selection: IndexSelection = .all) async throws -> IndexRebuild {
        try await rebuildIndexes(selection, progress: nil)
    }

    /// Throws ``DocumentsError/Code-swift.struct/unsupported``: the engine does not say which entries its documents
    /// own. The built-in engines override it.
    public func verifyIndexes(
        _ selection: IndexSelection, maximumReported: Int, progress: IndexProgressHandler?
    ) async throws -> IndexVerification {
        throw DocumentsError(
            .unsupported, "this documents engine (\(Self.self)) cannot verify its indexes",
            hint: "verify and rebuild are built into the sqlite and memory engines; an engine from a plugin keeps its"
                + " index itself (verify it with that engine's own tools)")
    }

    /// Throws ``DocumentsError/Code-swift.struct/unsupported``; the built-in engines override it.
    public func rebuildIndexes(_ selection: IndexSelection, progress: IndexProgressHandler?) async throws
        -> IndexRebuild
    {
        throw DocumentsError(
            .unsupported, "this documents engine (\(Self.self)) cannot rebuild its indexes",
            hint: "verify and rebuild are built into the sqlite and memory engines; an engine from a plugin keeps its"
                + " index itself (rebuild it with that engine's own tools)")
    }
}

/// FNV-1a over a path's bytes: how a verification splits the documents into partitions that fit its memory.
func pathPartition<Bytes: Sequence<UInt8>>(_ path: Bytes, of partitions: Int) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return Int(hash % UInt64(max(1, partitions)))
}
