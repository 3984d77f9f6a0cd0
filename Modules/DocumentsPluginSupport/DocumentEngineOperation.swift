/// The operations of the `documents` engine kind: one per `DocumentEngine` requirement. The raw value is the
/// operation name passed to the C ABI's `call` (see `suite_plugin.h`).
public enum DocumentEngineOperation: String, Sendable, Hashable, CaseIterable {
    /// `DocumentEngine/commit(_:commitTime:)`.
    case commit
    /// `DocumentEngine/documents(at:)`.
    case get
    /// `DocumentEngine/scan(_:)`.
    case scan
    /// `DocumentEngine/documents(inCollection:after:limit:)`.
    case list
    /// `DocumentEngine/documents(inCollectionGroup:after:limit:)`.
    case listGroup
    /// `DocumentEngine/changes(after:limit:)`.
    case changes
    /// `DocumentEngine/lastSequence()`.
    case lastSequence
    /// `DocumentEngine/addIndexEntries(_:)`.
    case addIndexEntries
    /// `DocumentEngine/removeIndex(_:)`.
    case removeIndex
    /// `DocumentEngine/metadata(forKey:)`.
    case metadata
    /// `DocumentEngine/setMetadata(_:forKey:)`.
    case setMetadata
    /// `DocumentEngine/waitForChanges(after:timeout:)`. A plugin built before it answers "unsupported"; the host
    /// then sleeps instead.
    case waitChanges
    /// Replaces a metadata value only if it still is the expected one (answers whether it did): how the host's
    /// `DocumentEngine/updateMetadata(forKey:_:)` stays atomic across the boundary.
    case compareAndSetMetadata
    /// `DocumentEngine/shutdown()`.
    case shutdown
    /// `DocumentEngine/scanReadingDocuments(_:)`: the plugin scans and reads in one call (scanning, then reading,
    /// itself when its engine cannot do both at once). A plugin built before it answers "unsupported".
    case scanDocuments
    /// `DocumentEngine/collectionIDs(under:)`. A plugin built before it, or whose engine cannot list collections,
    /// answers "unsupported"; the host's answer is then `nil`.
    case collectionIDs
    /// `DocumentEngine/changeLogStatus()`. A plugin built before it, or whose engine does not report its log,
    /// answers "unsupported"; the host's answer is then `nil`.
    case changeLogStatus
    /// The names of the engine's indexes (those in its index and those its documents' own entries name), for the host
    /// to apply an `IndexSelection` that is a predicate before it sends `verifyIndexes` or `rebuildIndexes`.
    case indexNames
    /// `DocumentEngine/verifyIndexes(_:maximumReported:progress:)` of the named indexes (or all). A plugin built
    /// before it answers "unsupported", as does one whose engine cannot verify.
    case verifyIndexes
    /// `DocumentEngine/rebuildIndexes(_:progress:)` of the named indexes (or all); "unsupported" as `verifyIndexes`.
    case rebuildIndexes
    /// Prepares a commit ahead of its write (`DocumentEngine`'s `prepareCommit`, which the store's bulk importer
    /// calls for its next chunk while the previous one writes) and answers a handle for `commitPrepared`. The plugin
    /// keeps the last few prepared commits. A plugin built before it answers "unsupported"; the host then commits
    /// the mutations as they are.
    case prepareCommit
    /// Commits what `prepareCommit` prepared, as `commit` would. A handle the plugin no longer holds gets a
    /// `wrongEngine` failure with nothing written, and the host commits the mutations as they are.
    case commitPrepared
}
