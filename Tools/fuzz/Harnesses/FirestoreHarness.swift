import Documents
import Foundation
import Logging
import SuiteServer
import SwiftProtobuf

#if DEBUG
    @testable import FirestoreProtocol
#endif

/// The Firestore protocol's requests: the first byte picks a message (a value, a commit, a query, an aggregation, a
/// document, a batch get), the rest is its protobuf encoding; what decodes is translated into Suite's model as the
/// service translates it, and commits and queries run against an in-memory store as an admin's would.
enum FirestoreHarness {
    static let root = "projects/fuzz/databases/(default)/documents"

    #if DEBUG
        static let service: FirestoreService? = {
            let directory = NSTemporaryDirectory() + "suite-fuzz-firestore-\(getpid())"
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            guard let accounts = try? ServerAccounts(path: directory + "/server.sqlite") else { return nil }
            let store = DocumentStore(engine: InMemoryDocumentEngine())
            return FirestoreService(
                databases: FirestoreDatabases(main: store, opener: { _, _ in nil }),
                access: FirestoreAccess(accounts: accounts, rules: .standard, acceptOwnerToken: false),
                metrics: ServerMetrics(), autoIndexes: true, maximumRequestBytes: 10 << 20,
                logger: Logger(label: "suite.fuzz"))
        }()
    #endif

    static func run(_ bytes: UnsafeRawBufferPointer) {
        #if DEBUG
            guard let selector = bytes.first, let service else { return }
            let message = Data(bytes.dropFirst())
            let admin = ServerAccounts.Account(uid: "fuzz", isAdmin: true)
            Blocking.run {
                do {
                    switch selector % 6 {
                    case 0:
                        let value = try Google_Firestore_V1_Value(serializedBytes: message)
                        let database = try await service.database(root, what: "fuzz", caller: admin)
                        _ = database.values.proto(try database.values.value(value, field: "f"))
                    case 1:
                        let request = try Google_Firestore_V1_CommitRequest(serializedBytes: message)
                        let database = try await service.database(request.database, what: "database", caller: admin)
                        _ = try await service.commit(request.writes, in: database, transaction: nil, caller: admin)
                    case 2:
                        let request = try Google_Firestore_V1_RunQueryRequest(serializedBytes: message)
                        let database = try await service.database(request.parent, what: "parent", caller: admin)
                        let translated = try database.values.query(
                            request.structuredQuery, parent: request.parent, store: database.store)
                        _ = try await translated.query.getDocuments()
                    case 3:
                        let request = try Google_Firestore_V1_RunAggregationQueryRequest(serializedBytes: message)
                        let database = try await service.database(request.parent, what: "parent", caller: admin)
                        let translated = try database.values.query(
                            request.structuredAggregationQuery.structuredQuery, parent: request.parent,
                            store: database.store)
                        _ = try await translated.query.count()
                    case 4:
                        let document = try Google_Firestore_V1_Document(serializedBytes: message)
                        let database = try await service.database(root, what: "fuzz", caller: admin)
                        _ = try database.names.documentPath(document.name, what: "name")
                        _ = database.values.protoFields(try database.values.fields(document.fields))
                    default:
                        let request = try Google_Firestore_V1_BatchGetDocumentsRequest(serializedBytes: message)
                        let database = try await service.database(request.database, what: "database", caller: admin)
                        for name in request.documents {
                            _ = try? await database.store.document(
                                database.names.documentPath(name, what: "document").string
                            ).getDocument()
                        }
                    }
                } catch {}
            }
        #endif
    }
}
