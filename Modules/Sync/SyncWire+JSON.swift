package import SuiteCore

// A push's request and answer read and written through `JSONValue` (SuiteCore's parser and printer) rather than
// Foundation's JSONDecoder and JSONEncoder: `JSONValue`'s own `Decodable` conformance tries each JSON type in turn and
// threw several errors per value, which made decoding a push of 400 mutations cost more than committing it.

extension SyncPushRequest {
    /// The request as `POST /v1/sync/push` carries it: `{"client", "mutations": [{"id", "writes": [...]}]}`.
    package var json: JSONValue {
        .object([
            "client": .string(client),
            "mutations": .array(mutations.map { .object(["id": .string($0.id), "writes": .array($0.writes)]) }),
        ])
    }

    /// Reads a request from the JSON of `POST /v1/sync/push`. Other members are ignored, as the `Decodable` reading
    /// did.
    ///
    /// - Throws: ``SyncError`` `.invalidInput` naming the first member missing or of the wrong type.
    package init(json: JSONValue) throws {
        guard let object = json.objectValue else {
            throw Self.invalid("the body is \(json.typeDescription), not a map")
        }
        guard let client = object["client"]?.stringValue else { throw Self.invalid("client must be a string") }
        guard let list = object["mutations"]?.arrayValue else { throw Self.invalid("mutations must be a list") }
        var mutations: [SyncMutation] = []
        mutations.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let id = item["id"]?.stringValue else {
                throw Self.invalid("mutations[\(index)].id must be a string")
            }
            guard let writes = item["writes"]?.arrayValue else {
                throw Self.invalid("mutations[\(index)].writes must be a list")
            }
            mutations.append(SyncMutation(id: id, writes: writes))
        }
        self.init(client: client, mutations: mutations)
    }

    private static func invalid(_ message: String) -> SyncError { SyncError(.invalidInput, message) }
}

extension SyncPushResponse {
    /// The answer as `POST /v1/sync/push` carries it: `{"results": [{"id", "status", "sequence"?, "message"?}]}`.
    package var json: JSONValue {
        .object([
            "results": .array(
                results.map { result in
                    var object: [String: JSONValue] = [
                        "id": .string(result.id), "status": .string(result.status.rawValue),
                    ]
                    if let sequence = result.sequence { object["sequence"] = .int(sequence) }
                    if let message = result.message { object["message"] = .string(message) }
                    return .object(object)
                })
        ])
    }

    /// Reads an answer from its JSON.
    ///
    /// - Throws: ``SyncError`` `.protocolError` naming the first member missing or of the wrong type.
    package init(json: JSONValue) throws {
        guard let list = json["results"]?.arrayValue else { throw Self.invalid("results must be a list") }
        var results: [Result] = []
        results.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let id = item["id"]?.stringValue else { throw Self.invalid("results[\(index)].id must be a string") }
            guard let status = item["status"]?.stringValue.flatMap(Result.Status.init(rawValue:)) else {
                throw Self.invalid("results[\(index)].status must be applied, duplicate or rejected")
            }
            let sequence = item["sequence"]
            guard sequence == nil || sequence == .null || sequence?.intValue != nil else {
                throw Self.invalid("results[\(index)].sequence must be an integer")
            }
            let message = item["message"]
            guard message == nil || message == .null || message?.stringValue != nil else {
                throw Self.invalid("results[\(index)].message must be a string")
            }
            results.append(
                Result(id: id, status: status, sequence: sequence?.intValue, message: message?.stringValue))
        }
        self.init(results: results)
    }

    private static func invalid(_ message: String) -> SyncError {
        SyncError(.protocolError, "the answer to a push does not decode: \(message)")
    }
}

// The change feed's pages and a resync's snapshot pages are read the same way on the replica: a pull of many changes
// decoded through Foundation spent more on `JSONValue`'s trial decoding than on writing the changes.

extension SyncChangesResponse {
    /// Reads a page of `GET /v1/sync/changes` from its JSON: `{"changes": [{"sequence", "path", "data"?}], "sequence",
    /// "more"}`; a change without `data` (or with `null`) is a deletion.
    ///
    /// - Throws: ``SyncError`` `.protocolError` naming the first member missing or of the wrong type.
    package init(json: JSONValue) throws {
        guard let list = json["changes"]?.arrayValue else { throw Self.invalid("changes must be a list") }
        guard let sequence = json["sequence"]?.intValue else { throw Self.invalid("sequence must be an integer") }
        guard let more = json["more"]?.boolValue else { throw Self.invalid("more must be true or false") }
        var changes: [SyncChange] = []
        changes.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let sequence = item["sequence"]?.intValue else {
                throw Self.invalid("changes[\(index)].sequence must be an integer")
            }
            guard let path = item["path"]?.stringValue else {
                throw Self.invalid("changes[\(index)].path must be a string")
            }
            // `JSONValue` is nil-literal expressible: compare with `.null` and set `Optional.none` explicitly.
            var data = item["data"]
            if data == .null { data = Optional.none }
            changes.append(SyncChange(sequence: sequence, path: path, data: data))
        }
        self.init(changes: changes, sequence: sequence, more: more)
    }

    private static func invalid(_ message: String) -> SyncError {
        SyncError(.protocolError, "a page of the change feed does not decode: \(message)")
    }
}

extension SyncSnapshotResponse {
    /// Reads a page of `GET /v1/sync/snapshot` from its JSON: `{"documents": [{"path", "data"}], "sequence",
    /// "next"?}`.
    ///
    /// - Throws: ``SyncError`` `.protocolError` naming the first member missing or of the wrong type.
    package init(json: JSONValue) throws {
        guard let list = json["documents"]?.arrayValue else { throw Self.invalid("documents must be a list") }
        guard let sequence = json["sequence"]?.intValue else { throw Self.invalid("sequence must be an integer") }
        let next = json["next"]
        guard next == nil || next == .null || next?.stringValue != nil else {
            throw Self.invalid("next must be a string")
        }
        var documents: [Document] = []
        documents.reserveCapacity(list.count)
        for (index, item) in list.enumerated() {
            guard let path = item["path"]?.stringValue else {
                throw Self.invalid("documents[\(index)].path must be a string")
            }
            guard let data = item["data"] else { throw Self.invalid("documents[\(index)].data is missing") }
            documents.append(Document(path: path, data: data))
        }
        self.init(documents: documents, sequence: sequence, next: next?.stringValue)
    }

    private static func invalid(_ message: String) -> SyncError {
        SyncError(.protocolError, "a page of the snapshot does not decode: \(message)")
    }
}
