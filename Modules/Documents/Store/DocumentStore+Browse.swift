extension DocumentStore {
    /// A page of the documents of `collection`, in path order (document-id order), after the document `after` when
    /// given, at most `limit` — for browsing a collection page by page without a query. One read per document.
    ///
    /// ```swift
    /// var page = try await store.listDocuments(in: try CollectionPath("users"), limit: 50)
    /// page = try await store.listDocuments(in: try CollectionPath("users"), after: page.last?.path, limit: 50)
    /// ```
    public func listDocuments(in collection: CollectionPath, after: DocumentPath? = nil, limit: Int) async throws
        -> [DocumentSnapshot]
    {
        guard limit > 0 else {
            throw DocumentsError(.invalidQuery, "a page needs a limit above 0, not \(limit)", hint: "e.g. 50")
        }
        let stored = try await engine.documents(inCollection: collection.string, after: after?.string, limit: limit)
        let snapshots = try stored.map { try DocumentSnapshot(stored: $0, path: try DocumentPath($0.path)) }
        recordCost(
            kind: "query", collection: collection.collectionID, CostCounts(reads: Int64(max(snapshots.count, 1))))
        return snapshots
    }

    /// The ids of the collections directly under `parent` (the top-level collections when `nil`) that hold a
    /// document at any depth, sorted — Firestore's `listCollections`. The document itself need not exist.
    ///
    /// - Throws: ``DocumentsError`` `.unsupported` when the engine cannot list collections (a plugin engine may not).
    public func collectionIDs(under parent: DocumentPath? = nil) async throws -> [String] {
        try await listedCollectionIDs(under: parent?.string)
    }

    /// The ids of the documents of `collection` that have subcollections, sorted, whether the documents exist or not
    /// (Firestore's "missing documents": `users/ana/notes/1` makes `ana` one of `users`' even when `users/ana` was
    /// never written). With ``listDocuments(in:after:limit:)`` it lets a walk reach every document below a collection.
    ///
    /// - Throws: ``DocumentsError`` `.unsupported` when the engine cannot list collections (a plugin engine may not).
    public func parentDocumentIDs(in collection: CollectionPath) async throws -> [String] {
        // The engines' collection listing reads the sorted collection paths holding documents: below a collection
        // path, the next segment is a document id.
        try await listedCollectionIDs(under: collection.string)
    }

    /// The engine's ``DocumentEngine/collectionIDs(under:)``, or `.unsupported` when it cannot list.
    private func listedCollectionIDs(under path: String?) async throws -> [String] {
        guard let ids = try await engine.collectionIDs(under: path) else {
            throw DocumentsError(
                .unsupported, "this documents engine cannot list collections",
                hint: "open a collection by its path instead, e.g. users")
        }
        return ids
    }
}
