import Logging

extension DocumentStore {
    /// Checks that index scans return exactly the entries the documents keep of their own, for every index or the
    /// selected ones (``IndexDefinition/engineIndexes`` selects a declared index), in one snapshot and with bounded
    /// memory. `suite docs index verify` calls it.
    ///
    /// ```swift
    /// let report = try await store.verifyIndexes()
    /// if !report.isConsistent { try await store.rebuildIndexes() }
    /// ```
    ///
    /// - Throws: ``DocumentsError/Code-swift.struct/unsupported`` when the engine cannot tell its documents' entries
    ///   (a plugin engine that keeps the default).
    public func verifyIndexes(
        _ selection: IndexSelection = .all, maximumReported: Int = 1_000, progress: IndexProgressHandler? = nil
    ) async throws -> IndexVerification {
        try await engine.verifyIndexes(selection, maximumReported: maximumReported, progress: progress)
    }

    /// Rebuilds every index, or the selected ones, from the entries the documents keep of their own: atomically, in
    /// chunks of bounded memory. `suite docs index rebuild` calls it.
    public func rebuildIndexes(_ selection: IndexSelection = .all, progress: IndexProgressHandler? = nil) async throws
        -> IndexRebuild
    {
        let report = try await engine.rebuildIndexes(selection, progress: progress)
        logger.debug("rebuilt \(report.indexes) index(es), \(report.entries) entries")
        return report
    }
}

extension IndexDefinition {
    /// The engine indexes holding this declared index: the group's one, or one per collection path whose collection
    /// ID is ``collectionID`` (collection scope). Pass it to ``DocumentStore/verifyIndexes(_:maximumReported:progress:)``
    /// or ``DocumentStore/rebuildIndexes(_:progress:)``.
    public var engineIndexes: IndexSelection {
        let suffix = "|composite|" + fields.map(\.spec).joined(separator: "|")
        switch scope {
        case .collectionGroup:
            let name = indexName(collectionPath: collectionID)
            return IndexSelection { $0 == name }
        case .collection:
            let collectionID = collectionID
            return IndexSelection { name in
                guard name.hasSuffix(suffix), !name.hasPrefix("*") else { return false }
                let collectionPath = name.dropLast(suffix.count)
                return collectionPath.split(separator: "/", omittingEmptySubsequences: false).last
                    .map { $0 == collectionID } ?? false
            }
        }
    }
}
