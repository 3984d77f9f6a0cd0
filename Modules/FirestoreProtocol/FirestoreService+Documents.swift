import Documents
import Foundation
import GRPCCore
import SuiteServer
import SwiftProtobuf

/// The document calls: get, list, create, update, delete, batch get, commit, batch write, transactions.
extension FirestoreService {
    func getDocument(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_GetDocumentRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary("GetDocument", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.name, what: "document name", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let path = try database.names.documentPath(message.name, what: "document name")
            try access.require(caller, write: false, path.string)
            let snapshot = try await read([path], in: database, transaction: message.transaction).first
            try await access.requireGet(caller, path.string, data: snapshot?.data, in: database)
            guard let snapshot, snapshot.exists else {
                throw RPCError(code: .notFound, message: "Document \"\(message.name)\" not found.")
            }
            metrics.documents(read: 1)
            return database.values.document(snapshot, mask: try Self.mask(message.hasMask, message.mask))
        }
    }

    func listDocuments(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_ListDocumentsRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_ListDocumentsResponse> {
        try await unary("ListDocuments", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let parent = try database.names.parentPath(message.parent, what: "parent")
            let collection: CollectionPath
            do {
                collection =
                    try parent.map { try $0.collection(message.collectionID) }
                    ?? CollectionPath(message.collectionID)
            } catch let error as DocumentsError {
                throw RPCError(code: .invalidArgument, message: "Invalid collection_id: \(error.message)")
            }
            try await access.requireList(
                caller,
                TranslatedQuery(
                    query: database.store.collection(collection.string).query, offset: 0,
                    limit: message.pageSize > 0 ? Int(message.pageSize) : nil, target: collection.string),
                in: database)
            guard message.orderBy.isEmpty || message.orderBy == "__name__" else {
                throw RPCError(code: .invalidArgument, message: "order_by must be empty or __name__ in ListDocuments")
            }
            let pageSize = message.pageSize > 0 ? Int(min(message.pageSize, 10_000)) : 300
            var after: DocumentPath?
            if !message.pageToken.isEmpty {
                guard let data = Data(base64Encoded: message.pageToken), let id = String(data: data, encoding: .utf8),
                    let path = try? collection.document(id)
                else { throw RPCError(code: .invalidArgument, message: "Invalid page_token") }
                after = path
            }
            let mask = try Self.mask(message.hasMask, message.mask)
            let snapshots = try await database.store.listDocuments(in: collection, after: after, limit: pageSize + 1)
            var documents = snapshots.map { database.values.document($0, mask: mask) }
            if message.showMissing {
                // Documents that do not exist but have subcollections: a name without fields or times.
                let existing = Set(snapshots.map(\.path.documentID))
                for id in try await database.store.parentDocumentIDs(in: collection)
                where !existing.contains(id) && (after.map { id > $0.documentID } ?? true) {
                    var missing = Google_Firestore_V1_Document()
                    missing.name = database.names.documentName(collection.string + "/" + id)
                    documents.append(missing)
                }
                documents.sort { $0.name < $1.name }
            }
            var response = Google_Firestore_V1_ListDocumentsResponse()
            if documents.count > pageSize {
                documents = Array(documents.prefix(pageSize))
                let lastID = documents.last.map { String($0.name.split(separator: "/").last ?? "") } ?? ""
                response.nextPageToken = Data(lastID.utf8).base64EncodedString()
            }
            response.documents = documents
            try await access.admit(caller, documentsRead: documents.count)
            metrics.documents(read: documents.count)
            return response
        }
    }

    func createDocument(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_CreateDocumentRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary("CreateDocument", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            let parent = try database.names.parentPath(message.parent, what: "parent")
            let path: DocumentPath
            do {
                let collection =
                    try parent.map { try $0.collection(message.collectionID) }
                    ?? CollectionPath(message.collectionID)
                path =
                    message.documentID.isEmpty ? collection.newDocument() : try collection.document(message.documentID)
            } catch let error as DocumentsError {
                throw RPCError(code: .invalidArgument, message: error.message)
            }
            var write = Google_Firestore_V1_Write()
            var document = message.document
            document.name = database.names.documentName(path.string)
            write.update = document
            write.currentDocument.exists = false
            let written = try await commitWithSnapshots([write], in: database, transaction: nil, caller: caller)
            guard let snapshot = written.snapshots.first else {
                throw RPCError(code: .internalError, message: "The commit answered no document for \(path)")
            }
            return database.values.document(snapshot, mask: try Self.mask(message.hasMask, message.mask))
        }
    }

    func updateDocument(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_UpdateDocumentRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_Document> {
        try await unary("UpdateDocument", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.document.name, what: "document name", caller: caller)
            var write = Google_Firestore_V1_Write()
            write.update = message.document
            if message.hasUpdateMask { write.updateMask = message.updateMask }
            if message.hasCurrentDocument { write.currentDocument = message.currentDocument }
            let written = try await commitWithSnapshots([write], in: database, transaction: nil, caller: caller)
            let path = try database.names.documentPath(message.document.name, what: "document name")
            guard let snapshot = written.snapshots.first else {
                throw RPCError(code: .internalError, message: "The commit answered no document for \(path)")
            }
            return database.values.document(snapshot, mask: try Self.mask(message.hasMask, message.mask))
        }
    }

    func deleteDocument(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_DeleteDocumentRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Protobuf_Empty> {
        try await unary("DeleteDocument", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.name, what: "document name", caller: caller)
            var write = Google_Firestore_V1_Write()
            write.delete = message.name
            if message.hasCurrentDocument { write.currentDocument = message.currentDocument }
            _ = try await commit([write], in: database, transaction: nil, caller: caller)
            return Google_Protobuf_Empty()
        }
    }

    func batchGetDocuments(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_BatchGetDocumentsRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_BatchGetDocumentsResponse> {
        try await streaming("BatchGetDocuments", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.database, what: "database", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let paths = try message.documents.map { try database.names.documentPath($0, what: "document name") }
            for path in paths { try access.require(caller, write: false, path.string) }
            let transaction = transaction(for: message, database: database)
            let snapshots = try await read(paths, in: database, transaction: transaction)
            for snapshot in snapshots {
                try await access.requireGet(caller, snapshot.path.string, data: snapshot.data, in: database)
            }
            let mask = try Self.mask(message.hasMask, message.mask)
            let readTime = FirestoreValues.timestamp(Timestamp(Date()).microseconds)
            var responses: [Google_Firestore_V1_BatchGetDocumentsResponse] = []
            for (index, (name, snapshot)) in zip(message.documents, snapshots).enumerated() {
                var response = Google_Firestore_V1_BatchGetDocumentsResponse()
                if snapshot.exists {
                    response.found = database.values.document(snapshot, mask: mask)
                } else {
                    response.missing = name
                }
                response.readTime = readTime
                if index == 0, message.newTransactionOptions != nil, let transaction {
                    response.transaction = transaction
                }
                responses.append(response)
            }
            if responses.isEmpty, message.newTransactionOptions != nil, let transaction {
                var response = Google_Firestore_V1_BatchGetDocumentsResponse()
                response.transaction = transaction
                responses.append(response)
            }
            try await access.admit(caller, documentsRead: snapshots.count)
            metrics.documents(read: snapshots.count)
            return responses
        }
    }

    func beginTransaction(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_BeginTransactionRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_BeginTransactionResponse> {
        try await unary("BeginTransaction", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.database, what: "database", caller: caller)
            if case .readOnly(let mode)? = message.options.mode, Self.isSet(mode.readTime) {
                try Self.refuseReadTime(true)
            }
            var response = Google_Firestore_V1_BeginTransactionResponse()
            response.transaction = transactions.begin(
                store: database.store, database: database.names.database,
                options: message.hasOptions ? message.options : nil)
            return response
        }
    }

    func commit(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_CommitRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_CommitResponse> {
        try await unary("Commit", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.database, what: "database", caller: caller)
            return try await commit(message.writes, in: database, transaction: message.transaction, caller: caller)
        }
    }

    func rollback(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_RollbackRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Protobuf_Empty> {
        try await unary("Rollback", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.database, what: "database", caller: caller)
            _ = try transactions.entry(message.transaction, database: database.names.database)
            _ = transactions.end(message.transaction)
            return Google_Protobuf_Empty()
        }
    }

    func batchWrite(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_BatchWriteRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_BatchWriteResponse> {
        try await unary("BatchWrite", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.database, what: "database", caller: caller)
            guard message.writes.count <= 500 else {
                throw RPCError(code: .invalidArgument, message: "A maximum of 500 writes are allowed per request.")
            }
            // Each write applies on its own (not atomically) and answers its own status.
            var response = Google_Firestore_V1_BatchWriteResponse()
            for write in message.writes {
                var status = Google_Rpc_Status()
                do {
                    let result = try await commit([write], in: database, transaction: nil, caller: caller)
                    response.writeResults.append(result.writeResults.first ?? Google_Firestore_V1_WriteResult())
                } catch {
                    let failure = FirestoreErrors.status(error, names: database.names)
                    status.code = Int32(failure.code.rawValue)
                    status.message = failure.message
                    response.writeResults.append(Google_Firestore_V1_WriteResult())
                }
                response.status.append(status)
            }
            return response
        }
    }

    func listCollectionIds(
        request: GRPCCore.ServerRequest<Google_Firestore_V1_ListCollectionIdsRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_ListCollectionIdsResponse> {
        try await unary("ListCollectionIds", request.metadata) { caller in
            let message = request.message
            let database = try await database(message.parent, what: "parent", caller: caller)
            try Self.refuseReadTime(Self.isSet(message.readTime))
            let parent = try database.names.parentPath(message.parent, what: "parent")
            if let parent {
                // Firestore's rules: the subcollections of a document the caller may get.
                let stored = try await database.store.getDocuments([parent]).first?.data
                try await access.requireGet(caller, parent.string, data: stored, in: database)
            } else if !caller.isAdmin {
                throw RPCError(code: .permissionDenied, message: "Missing or insufficient permissions.")
            }
            var ids = try await database.store.collectionIDs(under: parent)
            if !message.pageToken.isEmpty { ids = ids.filter { $0 > message.pageToken } }
            var response = Google_Firestore_V1_ListCollectionIdsResponse()
            let size = message.pageSize > 0 ? Int(message.pageSize) : ids.count
            if ids.count > size {
                ids = Array(ids.prefix(size))
                response.nextPageToken = ids.last ?? ""
            }
            response.collectionIds = ids
            return response
        }
    }

    /// Whether a read time was given (an unset one reads as the epoch).
    static func isSet(_ time: Google_Protobuf_Timestamp) -> Bool { time.seconds != 0 || time.nanos != 0 }

    /// Suite reads the latest data: a read at another time is refused clearly rather than answered wrongly.
    static func refuseReadTime(_ present: Bool) throws {
        guard present else { return }
        throw RPCError(
            code: .failedPrecondition,
            message: "read_time is not supported: this engine keeps only the latest version of each document; read "
                + "without read_time")
    }
}
