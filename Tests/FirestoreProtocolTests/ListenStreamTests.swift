import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import SwiftProtobuf
import Testing

/// Listen as the SDKs drive it: targets, CURRENT and NO_CHANGE, changes from the store, resume tokens.
@Suite struct ListenStreamTests {
    typealias Request = Google_Firestore_V1_ListenRequest
    typealias Response = Google_Firestore_V1_ListenResponse

    static func listen<T: Sendable>(
        _ server: FirestoreTestServer,
        _ body:
            @escaping @Sendable (_ send: @Sendable (Request) -> Void, _ next: @Sendable () async throws -> Response?)
            async throws -> T
    ) async throws -> T {
        try await server.conversation(
            { client, produce, handle in
                try await client.listen(
                    metadata: FirestoreTestServer.owner, requestProducer: produce, onResponse: handle)
            }, body)
    }

    static func addQueryTarget(_ id: Int32, collection: String, resumeToken: Data? = nil) -> Request {
        var query = Google_Firestore_V1_StructuredQuery()
        var from = Google_Firestore_V1_StructuredQuery.CollectionSelector()
        from.collectionID = collection
        query.from = [from]
        var target = Google_Firestore_V1_Target()
        target.targetID = id
        target.query.parent = FirestoreTestServer.root
        target.query.structuredQuery = query
        if let resumeToken { target.resumeToken = resumeToken }
        var request = Request()
        request.database = FirestoreTestServer.project
        request.addTarget = target
        return request
    }

    /// Reads answers until the global NO_CHANGE of a consistent snapshot; returns the documents changed before it
    /// (names), the removals, the existence filter's count if one came, and the snapshot's resume token.
    static func untilSnapshot(_ next: @Sendable () async throws -> Response?) async throws -> (
        changed: [String], removed: [String], filter: Int32?, current: Bool, token: Data
    ) {
        var changed: [String] = []
        var removed: [String] = []
        var filter: Int32?
        var current = false
        while let response = try await next() {
            switch response.responseType {
            case .documentChange(let change)?: changed.append(change.document.name)
            case .documentRemove(let remove)?: removed.append(remove.document)
            case .documentDelete(let delete)?: removed.append(delete.document)
            case .filter(let existence)?: filter = existence.count
            case .targetChange(let change)?:
                if change.targetChangeType == .current { current = true }
                if change.targetChangeType == .noChange && change.targetIds.isEmpty {
                    return (changed, removed, filter, current, change.resumeToken)
                }
                if change.targetChangeType == .remove {
                    throw RPCError(code: .internalError, message: "target removed: \(change.cause.message)")
                }
            case nil: continue
            }
        }
        throw RPCError(code: .internalError, message: "the stream ended")
    }

    @Test func aQueryTargetGetsItsDocumentsThenEveryChange() async throws {
        let server = try await FirestoreTestServer.start()
        _ = try await server.store.document("rooms/a").setData(["n": 1])
        _ = try await server.store.document("rooms/b").setData(["n": 2])
        try await Self.listen(server) { send, next in
            send(Self.addQueryTarget(1, collection: "rooms"))
            let first = try await Self.untilSnapshot(next)
            #expect(first.current)
            #expect(Set(first.changed) == [FirestoreTestServer.name("rooms/a"), FirestoreTestServer.name("rooms/b")])
            #expect(!first.token.isEmpty)
            // A change from another door (the store itself here, as the JSON API or `suite docs` would make).
            _ = try await server.store.document("rooms/c").setData(["n": 3])
            let added = try await Self.untilSnapshot(next)
            #expect(added.changed == [FirestoreTestServer.name("rooms/c")])
            try await server.store.document("rooms/a").delete()
            let deleted = try await Self.untilSnapshot(next)
            #expect(deleted.removed == [FirestoreTestServer.name("rooms/a")])
        }
        await server.stop()
    }

    @Test func aResumedTargetGetsOnlyWhatChangedAndAnExistenceFilter() async throws {
        let server = try await FirestoreTestServer.start()
        for id in ["a", "b", "c"] { _ = try await server.store.document("rooms/\(id)").setData(["n": 1]) }
        let token = try await Self.listen(server) { send, next in
            send(Self.addQueryTarget(7, collection: "rooms"))
            return try await Self.untilSnapshot(next).token
        }
        // While disconnected: one document changes, one is deleted.
        _ = try await server.store.document("rooms/b").setData(["n": 2])
        try await server.store.document("rooms/c").delete()
        let resumed = try await Self.listen(server) { send, next in
            send(Self.addQueryTarget(7, collection: "rooms", resumeToken: token))
            return try await Self.untilSnapshot(next)
        }
        #expect(resumed.changed == [FirestoreTestServer.name("rooms/b")])
        #expect(resumed.filter == 2)
        #expect(resumed.current)
        await server.stop()
    }

    @Test func aDocumentTargetSeesItsDocumentAppearAndGo() async throws {
        let server = try await FirestoreTestServer.start()
        try await Self.listen(server) { send, next in
            var target = Google_Firestore_V1_Target()
            target.targetID = 2
            target.documents.documents = [FirestoreTestServer.name("rooms/x")]
            var request = Request()
            request.database = FirestoreTestServer.project
            request.addTarget = target
            send(request)
            let missing = try await Self.untilSnapshot(next)
            #expect(missing.changed.isEmpty && missing.current)
            _ = try await server.store.document("rooms/x").setData(["n": 1])
            #expect(try await Self.untilSnapshot(next).changed == [FirestoreTestServer.name("rooms/x")])
            try await server.store.document("rooms/x").delete()
            #expect(try await Self.untilSnapshot(next).removed == [FirestoreTestServer.name("rooms/x")])
        }
        await server.stop()
    }

    @Test func aBadTargetIsRemovedWithItsCauseAndTheStreamGoesOn() async throws {
        let server = try await FirestoreTestServer.start()
        try await Self.listen(server) { send, next in
            var target = Google_Firestore_V1_Target()
            target.targetID = 3
            target.documents.documents = ["projects/p/databases/(default)/documents/rooms"]  // a collection
            var request = Request()
            request.database = FirestoreTestServer.project
            request.addTarget = target
            send(request)
            var removal: Google_Firestore_V1_TargetChange?
            while let response = try await next() {
                if case .targetChange(let change)? = response.responseType, change.targetChangeType == .remove {
                    removal = change
                    break
                }
            }
            #expect(removal?.targetIds == [3])
            #expect(removal?.cause.code == Int32(RPCError.Code.invalidArgument.rawValue))
            send(Self.addQueryTarget(4, collection: "rooms"))
            #expect(try await Self.untilSnapshot(next).current)
        }
        await server.stop()
    }
}
