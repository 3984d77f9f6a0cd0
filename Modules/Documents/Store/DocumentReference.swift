/// A document's address in a ``DocumentStore``: read it, write it, listen to it.
///
/// Every write returns the resulting ``DocumentSnapshot`` (data, version, update time):
///
/// ```swift
/// let ref = try store.document("users/u1")
/// try await ref.setData(["name": "Ada", "points": 0])
/// let after = try await ref.updateData(["points": .increment(10), "seen": .serverTimestamp])
/// ```
public struct DocumentReference: Sendable, Hashable {
    /// The store.
    public let store: DocumentStore
    /// The document's path.
    public let path: DocumentPath

    /// Creates a reference.
    public init(store: DocumentStore, path: DocumentPath) {
        self.store = store
        self.path = path
    }

    /// The document's id.
    public var documentID: String { path.documentID }

    /// The collection holding the document.
    public var parent: CollectionReference { CollectionReference(store: store, path: path.collection) }

    /// A subcollection of this document.
    public func collection(_ collectionID: String) throws -> CollectionReference {
        CollectionReference(store: store, path: try CollectionPath(path.string + "/" + collectionID))
    }

    public static func == (a: DocumentReference, b: DocumentReference) -> Bool {
        a.path == b.path && a.store === b.store
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(path) }

    // MARK: Reading

    /// Reads the document (1 read; none when it shares an identical running read, see
    /// ``DocumentStore/Options/queryCoalescing``). A missing document gives a snapshot with `exists == false`.
    public func getDocument() async throws -> DocumentSnapshot {
        try await store.readDocument(path)
    }

    // MARK: Writing

    /// Replaces the document with `data` (transforms allowed, except ``FieldValue/delete``), or with `merge: true`
    /// merges the given fields into it (maps are merged field by field), creating it when missing.
    @discardableResult
    public func setData(_ data: [String: FieldValue], merge: Bool = false, precondition: WritePrecondition = .none)
        async throws -> DocumentSnapshot
    {
        try await write(.set(data, merge ? .all : .none), precondition: precondition)
    }

    /// Replaces or merges plain data; see the `[String: FieldValue]` form of `setData(_:merge:precondition:)`.
    @_disfavoredOverload
    @discardableResult
    public func setData(_ data: DocumentData, merge: Bool = false, precondition: WritePrecondition = .none)
        async throws -> DocumentSnapshot
    {
        try await write(merge ? .set(FieldValue.fields(data), .all) : .replace(data), precondition: precondition)
    }

    /// Merges only the listed fields (dotted paths) of `data` into the document, creating it when missing.
    @discardableResult
    public func setData(_ data: [String: FieldValue], mergeFields: [String], precondition: WritePrecondition = .none)
        async throws -> DocumentSnapshot
    {
        let mask = try mergeFields.map { try FieldPath($0) }
        return try await write(.set(data, .fields(mask)), precondition: precondition)
    }

    /// Replaces (or merges) the document with an `Encodable` value, encoded by ``DocumentEncoder``.
    @discardableResult
    public func setData<T: Encodable>(from value: T, merge: Bool = false, precondition: WritePrecondition = .none)
        async throws -> DocumentSnapshot
    {
        let data = try DocumentEncoder().encode(value)
        return try await write(merge ? .set(FieldValue.fields(data), .all) : .replace(data), precondition: precondition)
    }

    /// Updates fields of an existing document; keys are dotted field paths (`"address.city"`), values may be
    /// transforms. Fails with ``DocumentsError/Code-swift.struct/notFound`` when the document does not exist.
    @discardableResult
    public func updateData(_ fields: [String: FieldValue], precondition: WritePrecondition = .none) async throws
        -> DocumentSnapshot
    {
        try await write(.update(try PendingWrite.updateFields(fields)), precondition: precondition)
    }

    /// Updates fields given as ``FieldPath``s.
    @discardableResult
    public func updateData(fieldPaths fields: [FieldPath: FieldValue], precondition: WritePrecondition = .none)
        async throws -> DocumentSnapshot
    {
        try await write(
            .update(try PendingWrite.validatedUpdate(fields.map { ($0.key, $0.value) })), precondition: precondition)
    }

    /// Deletes the document (deleting a missing document is not an error). The snapshot has `exists == false` and the
    /// delete's sequence as version.
    @discardableResult
    public func delete(precondition: WritePrecondition = .none) async throws -> DocumentSnapshot {
        try await write(.delete, precondition: precondition)
    }

    private func write(_ operation: PendingWrite.Operation, precondition: WritePrecondition) async throws
        -> DocumentSnapshot
    {
        let pending = PendingWrite(path: path, operation: operation, precondition: precondition)
        let snapshots = try await store.commit([pending], kind: pending.kind)
        guard let snapshot = snapshots.first else { return .missing(path) }
        return snapshot
    }
}

/// A collection's address: a ``Query`` over it, plus document creation.
///
/// ```swift
/// let orders = try store.collection("users/u1/orders")
/// let created = try await orders.addDocument(data: ["total": 12.5, "status": "open"])
/// let open = try await orders.whereField("status", isEqualTo: "open").getDocuments()
/// ```
public struct CollectionReference: Sendable {
    /// The store.
    public let store: DocumentStore
    /// The collection's path.
    public let path: CollectionPath

    /// Creates a reference.
    public init(store: DocumentStore, path: CollectionPath) {
        self.store = store
        self.path = path
    }

    /// The collection's id (last segment).
    public var collectionID: String { path.collectionID }

    /// A query over every document of the collection.
    public var query: Query { Query(store: store, target: .collection(path)) }

    /// The document `id` of this collection.
    public func document(_ id: String) throws -> DocumentReference {
        DocumentReference(store: store, path: try path.document(id))
    }

    /// A new document with an automatically generated id (20 characters).
    public func document() throws -> DocumentReference {
        try document(AutoID.generate())
    }

    /// Creates a document with an automatic id; returns it.
    @discardableResult
    public func addDocument(data: [String: FieldValue]) async throws -> DocumentSnapshot {
        try await document().setData(data, precondition: .exists(false))
    }

    /// Creates a document with an automatic id from plain data; returns it.
    @_disfavoredOverload
    @discardableResult
    public func addDocument(data: DocumentData) async throws -> DocumentSnapshot {
        try await document().setData(data, precondition: .exists(false))
    }

    /// Creates a document with an automatic id from an `Encodable` value; returns it.
    @discardableResult
    public func addDocument<T: Encodable>(from value: T) async throws -> DocumentSnapshot {
        try await document().setData(from: value, precondition: .exists(false))
    }
}
