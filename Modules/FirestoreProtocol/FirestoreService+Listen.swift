import Documents
import Foundation
import GRPCCore
import SuiteServer

/// The Listen stream: targets (documents or a query) added and removed by the client, fed by the store's change
/// feed, so a change from any door (the JSON API, Sync, `suite docs` in another process, another server on the same
/// PostgreSQL) arrives. Each target is answered as Firestore does: ADD, its documents, CURRENT, then a global
/// NO_CHANGE with a resume token and read time for each consistent snapshot. A resume token is the store's change
/// sequence: a resumed target gets only the documents changed since, then an existence filter with its count.
extension FirestoreService {
    func listen(
        request: StreamingServerRequest<Google_Firestore_V1_ListenRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_ListenResponse> {
        let caller: ServerAccounts.Account
        do { caller = try await streamCaller("Listen", request.metadata) } catch {
            return StreamingServerResponse(error: error)
        }
        metrics.recordCall(method: "Listen", code: "OK")
        return StreamingServerResponse { writer in
            let (outbox, sender) = AsyncStream<Google_Firestore_V1_ListenResponse>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await response in outbox { try await writer.write(response) }
                }
                var targets: [Int32: Task<Void, Never>] = [:]
                defer { for task in targets.values { task.cancel() } }
                for try await message in request.messages {
                    switch message.targetChange {
                    case .addTarget(let target)?:
                        targets[target.targetID]?.cancel()
                        targets[target.targetID] = Task {
                            await self.run(target, database: message.database, caller: caller, send: sender)
                        }
                    case .removeTarget(let id)?:
                        targets.removeValue(forKey: id)?.cancel()
                        sender.yield(Self.targetChange(.remove, [id]))
                    case nil:
                        continue
                    }
                }
                for task in targets.values { task.cancel() }
                sender.finish()
                try await group.waitForAll()
            }
            return [:]
        }
    }

    static func targetChange(
        _ kind: Google_Firestore_V1_TargetChange.TargetChangeType, _ ids: [Int32], token: Int64? = nil,
        cause: RPCError? = nil
    ) -> Google_Firestore_V1_ListenResponse {
        var change = Google_Firestore_V1_TargetChange()
        change.targetChangeType = kind
        change.targetIds = ids
        if let token {
            change.resumeToken = resumeToken(token)
            change.readTime = FirestoreValues.timestamp(Timestamp(Date()).microseconds)
        }
        if let cause {
            change.cause.code = Int32(cause.code.rawValue)
            change.cause.message = cause.message
        }
        var response = Google_Firestore_V1_ListenResponse()
        response.targetChange = change
        return response
    }

    static func resumeToken(_ sequence: Int64) -> Data {
        withUnsafeBytes(of: sequence.bigEndian) { Data($0) }
    }

    static func resumeSequence(_ token: Data) -> Int64? {
        guard token.count == 8 else { return nil }
        return Int64(bitPattern: token.reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// Runs one target until it is removed or the stream ends; a failure removes the target with its cause.
    private func run(
        _ target: Google_Firestore_V1_Target, database name: String, caller: ServerAccounts.Account,
        send: AsyncStream<Google_Firestore_V1_ListenResponse>.Continuation
    ) async {
        let id = target.targetID
        do {
            let database = try await database(name, what: "database", caller: caller)
            let resumeFrom: Int64? =
                if case .resumeToken(let token)? = target.resumeType {
                    Self.resumeSequence(token)
                } else { nil }
            switch target.targetType {
            case .query(let queryTarget)?:
                let translated = try database.values.query(
                    queryTarget.structuredQuery, parent: queryTarget.parent, store: database.store)
                try await authorize(translated, caller: caller, in: database)
                send.yield(Self.targetChange(.add, [id]))
                try await listen(translated, id: id, in: database, resumeFrom: resumeFrom, send: send)
            case .documents(let documents)?:
                let paths = try documents.documents.map { try database.names.documentPath($0, what: "document") }
                for path in paths { try access.require(caller, write: false, path.string) }
                send.yield(Self.targetChange(.add, [id]))
                try await listen(paths, id: id, in: database, caller: caller, resumeFrom: resumeFrom, send: send)
            case nil:
                throw RPCError(code: .invalidArgument, message: "A target needs a query or documents")
            }
        } catch is CancellationError {
            return
        } catch {
            if Task.isCancelled { return }
            send.yield(Self.targetChange(.remove, [id], cause: FirestoreErrors.status(error, names: nil)))
        }
    }

    private func listen(
        _ translated: TranslatedQuery, id: Int32, in database: Database, resumeFrom: Int64?,
        send: AsyncStream<Google_Firestore_V1_ListenResponse>.Continuation
    ) async throws {
        var query = translated.query
        if let limit = translated.limit, translated.scope == nil {
            query = query.limit(limit + translated.offset)
        }
        let planned = query
        _ = try await withAutoIndexes(database.store) { try await planned.explain() }
        var first = true
        for try await snapshot in query.snapshots() {
            let inScope: (DocumentSnapshot) -> Bool = { document in
                translated.scope.map { document.path.string.hasPrefix($0) } ?? true
            }
            if first {
                let documents = snapshot.documents.filter(inScope)
                for document in documents where resumeFrom.map({ document.version > $0 }) ?? true {
                    send.yield(documentChange(document, id: id, database: database, mask: translated.mask))
                }
                if resumeFrom != nil {
                    var filter = Google_Firestore_V1_ExistenceFilter()
                    filter.targetID = id
                    filter.count = Int32(clamping: documents.count)
                    var response = Google_Firestore_V1_ListenResponse()
                    response.filter = filter
                    send.yield(response)
                }
                send.yield(Self.targetChange(.current, [id], token: snapshot.sequence))
                first = false
            } else {
                for change in snapshot.documentChanges where inScope(change.document) {
                    switch change.kind {
                    case .added, .modified:
                        send.yield(documentChange(change.document, id: id, database: database, mask: translated.mask))
                    case .removed:
                        var remove = Google_Firestore_V1_DocumentRemove()
                        remove.document = database.names.documentName(change.document.path.string)
                        remove.removedTargetIds = [id]
                        var response = Google_Firestore_V1_ListenResponse()
                        response.documentRemove = remove
                        send.yield(response)
                    }
                }
            }
            send.yield(Self.targetChange(.noChange, [], token: snapshot.sequence))
        }
    }

    /// A document target: each version of each document is judged by Firestore's rules before it is sent (one the
    /// caller may no longer read ends the target with PERMISSION_DENIED, as Firestore's listeners end).
    private func listen(
        _ paths: [DocumentPath], id: Int32, in database: Database, caller: ServerAccounts.Account,
        resumeFrom: Int64?, send: AsyncStream<Google_Firestore_V1_ListenResponse>.Continuation
    ) async throws {
        let judged: Bool = if case .firestore = access.rules { true } else { false }
        // Every document's snapshots, merged: (index, snapshot).
        let (merged, into) = AsyncThrowingStream<(Int, DocumentSnapshot), any Error>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, path) in paths.enumerated() {
                group.addTask {
                    do {
                        for try await snapshot in database.store.document(path).snapshots() {
                            into.yield((index, snapshot))
                        }
                    } catch { into.finish(throwing: error) }
                }
            }
            var seen = Set<Int>()
            var existed = [Bool](repeating: false, count: paths.count)
            for try await (index, snapshot) in merged {
                if judged {
                    try await access.requireGet(caller, snapshot.path.string, data: snapshot.data, in: database)
                }
                let isFirst = seen.insert(index).inserted
                if snapshot.exists {
                    if !isFirst || resumeFrom.map({ snapshot.version > $0 }) ?? true {
                        send.yield(documentChange(snapshot, id: id, database: database, mask: nil))
                    }
                } else if existed[index] || (isFirst && resumeFrom != nil) {
                    var delete = Google_Firestore_V1_DocumentDelete()
                    delete.document = database.names.documentName(snapshot.path.string)
                    delete.removedTargetIds = [id]
                    var response = Google_Firestore_V1_ListenResponse()
                    response.documentDelete = delete
                    send.yield(response)
                }
                existed[index] = snapshot.exists
                let sequence = try await database.store.lastSequence()
                if isFirst && seen.count == paths.count {
                    send.yield(Self.targetChange(.current, [id], token: sequence))
                }
                if seen.count == paths.count { send.yield(Self.targetChange(.noChange, [], token: sequence)) }
            }
            group.cancelAll()
        }
    }

    private func documentChange(
        _ document: DocumentSnapshot, id: Int32, database: Database, mask: [FieldPath]?
    ) -> Google_Firestore_V1_ListenResponse {
        var change = Google_Firestore_V1_DocumentChange()
        change.document = database.values.document(document, mask: mask)
        change.targetIds = [id]
        var response = Google_Firestore_V1_ListenResponse()
        response.documentChange = change
        return response
    }
}
