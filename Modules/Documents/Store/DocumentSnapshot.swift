public import SuiteCore

/// Where a snapshot's data came from, as of the moment it was taken. A plain local store reports `false` for both; a
/// Sync replica's store reports its outbox (``hasPendingWrites``) and whether its server confirmed its data
/// (``isFromCache``).
public struct SnapshotMetadata: Sendable, Hashable, Codable {
    /// The snapshot contains local writes not yet confirmed by the server.
    public var hasPendingWrites: Bool
    /// The snapshot was served from a local copy its server has not confirmed (Firestore's meaning): a replica's
    /// store before its first successful pull, or after the server could not be reached. See
    /// ``DocumentStore/isFromCache``.
    public var isFromCache: Bool

    /// Creates metadata.
    public init(hasPendingWrites: Bool = false, isFromCache: Bool = false) {
        self.hasPendingWrites = hasPendingWrites
        self.isFromCache = isFromCache
    }
}

/// A document as read or written at one moment: its path, its fields (or `nil` when it does not exist), its version
/// and times.
///
/// Every write returns one, so there is no need to read a document again after writing it.
///
/// ```swift
/// let snapshot = try await store.document("users/u1").updateData(["points": .increment(10)])
/// print(snapshot.get("points") ?? .null, snapshot.version)
/// ```
public struct DocumentSnapshot: Sendable, Hashable {
    /// The document's path.
    public let path: DocumentPath
    /// The document's fields, or `nil` when it does not exist.
    public let data: DocumentData?
    /// The document's version: the change-log sequence of the commit that last wrote it (for a deleted document,
    /// the sequence of the delete; 0 when it was never seen).
    public let version: Int64
    /// When the document was created; `nil` when it does not exist.
    public let createTime: Timestamp?
    /// When the document was last written; `nil` when it does not exist.
    public let updateTime: Timestamp?
    /// Where the data came from.
    public var metadata: SnapshotMetadata

    /// Creates a snapshot.
    public init(
        path: DocumentPath, data: DocumentData?, version: Int64, createTime: Timestamp?, updateTime: Timestamp?,
        metadata: SnapshotMetadata = SnapshotMetadata()
    ) {
        self.path = path
        self.data = data
        self.version = version
        self.createTime = createTime
        self.updateTime = updateTime
        self.metadata = metadata
    }

    /// Whether the document exists.
    public var exists: Bool { data != nil }

    /// The document's id (last path segment).
    public var documentID: String { path.documentID }

    /// The value at a dotted field path (`"address.city"`), or `nil` when missing or the path is malformed.
    public func get(_ field: String) -> DocumentValue? {
        guard let data, let path = try? FieldPath(field) else { return nil }
        if path == FieldPath.documentID { return .reference(self.path.string) }
        return data.value(at: path)
    }

    /// The value at a field path, or `nil` when missing.
    public func get(_ field: FieldPath) -> DocumentValue? {
        if field == FieldPath.documentID { return .reference(path.string) }
        return data?.value(at: field)
    }

    /// The value at a dotted field path as a Swift type, or `nil` when the field is missing (or null).
    ///
    /// Throws ``DocumentsError`` `.invalidValue` when the field holds another type, and `.invalidField` for a
    /// malformed path, so a wrong guess is never a silent `nil`:
    /// ```swift
    /// let points = try snapshot.get("points", as: Int.self) ?? 0
    /// ```
    public func get<T: DocumentValueConvertible>(_ field: String, as type: T.Type) throws -> T? {
        try get(try FieldPath(field), as: type)
    }

    /// The value at a field path as a Swift type; see ``get(_:as:)-(String,_)``.
    public func get<T: DocumentValueConvertible>(_ field: FieldPath, as type: T.Type) throws -> T? {
        guard let value = get(field), value != .null else { return nil }
        guard let converted = T(documentValue: value) else {
            throw DocumentsError(
                .invalidValue,
                "field '\(field.canonicalString)' of '\(path.string)' holds \(value.typeName) \(value), not \(T.self)",
                hint: "read it as \(value.typeName), or as DocumentValue")
        }
        return converted
    }

    /// The document decoded into `type` (its `@DocumentID` property is filled from the path).
    /// Throws ``DocumentsError/Code-swift.struct/notFound`` when the document does not exist.
    public func data<T: Decodable>(as type: T.Type) throws -> T {
        guard let data else {
            throw DocumentsError(.notFound, "document '\(path.string)' does not exist")
        }
        return try DocumentDecoder().decode(type, from: data, path: path)
    }

    /// The snapshot as JSON for the command line: `{"path","data","updateTime","version"}`, with `updateTime` in
    /// RFC 3339 and `data` in tagged JSON (``DocumentJSON``); `data` and `updateTime` are null for a missing document.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "path": .string(path.string),
            "version": .int(version),
        ]
        object["data"] = data.map { DocumentJSON.json(from: $0) } ?? .null
        object["updateTime"] = updateTime.map { Self.rfc3339($0) } ?? .null
        return .object(object)
    }

    /// The snapshot's fields limited to `fields` (a field mask); other fields are dropped.
    public func masked(to fields: [FieldPath]) -> DocumentSnapshot {
        guard let data else { return self }
        var masked: DocumentData = [:]
        for field in fields where field != FieldPath.documentID {
            if let value = data.value(at: field) { masked.setValue(value, at: field) }
        }
        return DocumentSnapshot(
            path: path, data: masked, version: version, createTime: createTime, updateTime: updateTime,
            metadata: metadata)
    }

    static func rfc3339(_ timestamp: Timestamp) -> JSONValue {
        let tagged = DocumentJSON.json(from: DocumentValue.timestamp(timestamp))
        if let text = tagged["$timestamp"] { return text }
        return tagged
    }

    /// Builds a snapshot from a stored document, decoding its body.
    init(stored: StoredDocument, path: DocumentPath) throws {
        self.init(
            path: path, data: try ValueCodec.decode(stored.body), version: stored.version,
            createTime: Timestamp(microseconds: stored.createTime),
            updateTime: Timestamp(microseconds: stored.updateTime))
    }

    /// Builds a snapshot from a stored document whose body is already decoded.
    init(stored: StoredDocument, path: DocumentPath, data: DocumentData) {
        self.init(
            path: path, data: data, version: stored.version, createTime: Timestamp(microseconds: stored.createTime),
            updateTime: Timestamp(microseconds: stored.updateTime))
    }

    /// A snapshot of a missing document.
    static func missing(_ path: DocumentPath, version: Int64 = 0) -> DocumentSnapshot {
        DocumentSnapshot(path: path, data: nil, version: version, createTime: nil, updateTime: nil)
    }
}
