import Documents
import Foundation
import GRPCCore
import Logging
import SuiteServer
import SwiftProtobuf

/// Firestore's RPC service (`google.firestore.v1.Firestore`) in front of Suite's Documents stores: Google's client
/// libraries and Firebase's SDKs talk to it unchanged. Every call goes through the same store, rules and cost
/// counters as the JSON API; the service keeps no data of its own but open transactions and streams.
struct FirestoreService: Sendable {
    let databases: FirestoreDatabases
    let access: FirestoreAccess
    let metrics: ServerMetrics
    let transactions = FirestoreTransactions()
    let writeStreams = FirestoreWriteStreams()
    let logger: Logger
    /// Declare the composite indexes queries need instead of failing them (as Firestore's emulator needs none).
    let autoIndexes: Bool
    /// The largest writes request accepted.
    let maximumRequestBytes: Int

    init(
        databases: FirestoreDatabases, access: FirestoreAccess, metrics: ServerMetrics, autoIndexes: Bool,
        maximumRequestBytes: Int, logger: Logger
    ) {
        self.maximumRequestBytes = maximumRequestBytes
        self.autoIndexes = autoIndexes
        self.databases = databases
        self.access = access
        self.metrics = metrics
        self.logger = logger
    }

    /// One database as a call names it.
    struct Database {
        var names: ResourceNames
        var store: DocumentStore
        var values: FirestoreValues { FirestoreValues(names: names) }
    }

    /// The database a resource name lies in; a database other than `(default)` is created when an admin uses it.
    func database(_ name: String, what: String, caller: ServerAccounts.Account) async throws -> Database {
        let (names, _) = try ResourceNames.parse(name, what: what)
        let store = try await databases.store(names.databaseID, create: caller.isAdmin)
        return Database(names: names, store: store)
    }

    /// Runs a unary call: the caller, the answer or Firestore's status, the call counted in `/metrics`.
    func unary<Output: Sendable>(
        _ method: String, _ metadata: Metadata,
        _ body: (ServerAccounts.Account) async throws -> Output
    ) async throws -> ServerResponse<Output> {
        do {
            let caller = try await access.caller(metadata)
            try await access.admit(caller, method: method)
            let output = try await body(caller)
            metrics.recordCall(method: method, code: "OK")
            return ServerResponse(message: output)
        } catch {
            throw failure(method, error)
        }
    }

    /// Runs a server-streaming call whose messages are computed before the first is sent.
    func streaming<Output: Sendable>(
        _ method: String, _ metadata: Metadata,
        _ body: @escaping @Sendable (ServerAccounts.Account) async throws -> [Output]
    ) async throws -> StreamingServerResponse<Output> {
        do {
            let caller = try await access.caller(metadata)
            try await access.admit(caller, method: method)
            let messages = try await body(caller)
            metrics.recordCall(method: method, code: "OK")
            return StreamingServerResponse { writer in
                try await writer.write(contentsOf: messages)
                return [:]
            }
        } catch {
            return StreamingServerResponse(error: failure(method, error))
        }
    }

    /// The caller of a bidirectional stream; a refusal is Firestore's status, counted in `/metrics`.
    func streamCaller(_ method: String, _ metadata: Metadata) async throws(RPCError) -> ServerAccounts.Account {
        do {
            let caller = try await access.caller(metadata)
            try await access.admit(caller, method: method)
            return caller
        } catch {
            throw failure(method, error)
        }
    }

    /// Firestore's status for a call's error, counted in `/metrics` (and logged when it is an internal one).
    func failure(_ method: String, _ error: any Error, names: ResourceNames? = nil) -> RPCError {
        let status = FirestoreErrors.status(error, names: names)
        metrics.recordCall(method: method, code: FirestoreErrors.codeName(status.code))
        if status.code == .internalError { logger.error("\(method): \(error)") }
        return status
    }

    /// A document mask's field paths, or nil for the whole document.
    static func mask(_ has: Bool, _ mask: Google_Firestore_V1_DocumentMask) throws -> [FieldPath]? {
        guard has else { return nil }
        return try mask.fieldPaths.map { try FirestoreValues.fieldPath($0, what: "mask") }
    }

    /// Reads documents for a call: inside the transaction `id` when given (the reads are recorded), else now.
    func read(
        _ paths: [DocumentPath], in database: Database, transaction: Data?
    ) async throws -> [DocumentSnapshot] {
        guard let transaction, !transaction.isEmpty else { return try await database.store.getDocuments(paths) }
        let entry = try transactions.entry(transaction, database: database.names.database)
        if entry.readOnly {
            // Firestore answers a read-only transaction from one snapshot; without old versions, Suite reads at one
            // moment and aborts when an earlier read no longer holds (a read-only commit checks nothing).
            return try await entry.transaction.getDocumentsAtOneMoment(paths.map { database.store.document($0) })
        }
        var snapshots: [DocumentSnapshot] = []
        for path in paths { snapshots.append(try await entry.transaction.getDocument(database.store.document(path))) }
        return snapshots
    }

    /// Commits translated writes atomically (in the transaction `id` when given) and answers Firestore's results.
    func commit(
        _ writes: [Google_Firestore_V1_Write], in database: Database, transaction: Data?,
        caller: ServerAccounts.Account
    ) async throws -> Google_Firestore_V1_CommitResponse {
        try await commitWithSnapshots(writes, in: database, transaction: transaction, caller: caller).response
    }

    /// ``commit(_:in:transaction:caller:)``, with the documents as written (one per write: what CreateDocument and
    /// UpdateDocument answer, without reading them again).
    func commitWithSnapshots(
        _ writes: [Google_Firestore_V1_Write], in database: Database, transaction: Data?,
        caller: ServerAccounts.Account
    ) async throws -> (response: Google_Firestore_V1_CommitResponse, snapshots: [DocumentSnapshot]) {
        guard writes.count <= 500 else {
            throw RPCError(code: .invalidArgument, message: "A maximum of 500 writes are allowed per request.")
        }
        // Writes whose documents are each within the store's limit (the commit checks it) and that cannot add up past
        // the request limit are not encoded again to be measured: a one-write commit, as a rule.
        let bound = writes.count * (database.store.limits.maximumDocumentSize + (64 << 10))
        let size = bound <= maximumRequestBytes ? 0 : writes.reduce(0) { $0 + $1.serializedBytesCount }
        guard size <= maximumRequestBytes else {
            throw RPCError(
                code: .invalidArgument, message: "Request payload size exceeds the limit: \(maximumRequestBytes) bytes."
            )
        }
        let values = database.values
        let translated = try writes.map { try values.write($0) }
        for write in translated { try access.require(caller, write: true, write.pending.path.string) }
        try await access.admit(caller, writes: writes)
        var response = Google_Firestore_V1_CommitResponse()
        let snapshots: [DocumentSnapshot]
        if let transaction, !transaction.isEmpty {
            let entry = try transactions.entry(transaction, database: database.names.database)
            guard !entry.readOnly || translated.isEmpty else {
                throw RPCError(code: .invalidArgument, message: "Cannot modify entities in a read-only transaction.")
            }
            _ = transactions.end(transaction)
            if entry.readOnly {
                // Nothing to check: a read-only transaction's reads were taken at one moment (`read`).
                snapshots = []
            } else {
                for write in translated { entry.transaction.buffer(write.pending) }
                do {
                    snapshots = try await entry.transaction.commitOnce(review: access.review(caller, in: database))
                } catch let error as DocumentsError where error.code == .permissionDenied {
                    transactions.restore(transaction, entry)
                    throw error
                }
            }
        } else {
            snapshots = try await database.store.commit(
                translated.map(\.pending), kind: "commit", review: access.review(caller, in: database))
        }
        let commitTime =
            snapshots.compactMap { $0.updateTime?.microseconds }.max() ?? Timestamp(Date()).microseconds
        response.commitTime = FirestoreValues.timestamp(commitTime)
        response.writeResults = zip(snapshots, translated).map {
            values.writeResult($0, $1, commitTime: commitTime)
        }
        metrics.documents(written: snapshots.count)
        return (response, snapshots)
    }
}
