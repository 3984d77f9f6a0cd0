import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import GRPCProtobuf
import SuiteServer
import SwiftProtobuf
import Testing

/// Interop with the store (every value type both ways) and bad input: each gets a clear status, nothing is
/// half-written, and the server goes on serving.
@Suite struct ProtocolEdgeTests {
    /// Every value type, as the store holds it.
    static let everyValue: DocumentData = [
        "null": .null, "bool": .bool(true), "int": .int(.min), "double": .double(-0.5), "nan": .double(.nan),
        "inf": .double(.infinity), "time": .timestamp(Timestamp(microseconds: 1_700_000_000_123_456)),
        "string": .string("héllo"), "bytes": .bytes([0, 255, 7]), "ref": .reference("users/ana"),
        "geo": .geoPoint(GeoPoint(latitude: 48.85, longitude: 2.35)),
        "array": .array([.int(1), .string("x"), .map(["k": .bool(false)])]),
        "map": .map(["nested": .map(["deep": .int(3)])]),
        "vector": .map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(2.5)])]),
    ]

    static func commit(_ writes: [Google_Firestore_V1_Write]) -> Google_Firestore_V1_CommitRequest {
        var request = Google_Firestore_V1_CommitRequest()
        request.database = FirestoreTestServer.project
        request.writes = writes
        return request
    }

    static func get(_ name: String) -> Google_Firestore_V1_GetDocumentRequest {
        var request = Google_Firestore_V1_GetDocumentRequest()
        request.name = name
        return request
    }

    /// Documents equal as data, NaN equal to NaN.
    static func same(_ a: DocumentData?, _ b: DocumentData?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
    }

    static func same(_ a: DocumentValue, _ b: DocumentValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.map(let x), .map(let y)): return same(x, y)
        default: return a == b
        }
    }

    @Test func everyValueTypeReadsBackIdenticallyBothWays() async throws {
        let server = try await FirestoreTestServer.start()
        // Written by the store (as the JSON API and `suite docs` write), read over gRPC, written back over gRPC.
        _ = try await server.store.document("types/one").setData(Self.everyValue)
        try await server.withClient { client in
            let read = try await client.getDocument(
                Self.get(FirestoreTestServer.name("types/one")), metadata: FirestoreTestServer.owner
            ) { try $0.message }
            #expect(read.fields["int"]?.integerValue == .min)
            #expect(read.fields["ref"]?.referenceValue == FirestoreTestServer.name("users/ana"))
            #expect(read.fields["time"]?.timestampValue.nanos == 123_456_000)
            var copy = read
            copy.name = FirestoreTestServer.name("types/two")
            var write = Google_Firestore_V1_Write()
            write.update = copy
            _ = try await client.commit(Self.commit([write]), metadata: FirestoreTestServer.owner) { try $0.message }
        }
        let two = try await server.store.document("types/two").getDocument()
        #expect(Self.same(two.data, Self.everyValue))
        await server.stop()
    }

    @Test func badRequestsGetAClearStatusAndTheServerGoesOn() async throws {
        let server = try await FirestoreTestServer.start()
        try await server.withClient { client in
            let owner = FirestoreTestServer.owner
            // A wrong resource name.
            let wrongName = await #expect(throws: RPCError.self) {
                try await client.getDocument(Self.get("projects/p/users/ana"), metadata: owner) {
                    try $0.message
                }
            }
            #expect(wrongName?.code == .invalidArgument)
            // A mask with an invalid field path.
            var masked = FirestoreTestServer.update("users/a", ["n": FirestoreTestServer.value(1)])
            masked.updateMask.fieldPaths = ["a..b"]
            let badMask = await #expect(throws: RPCError.self) {
                try await client.commit(Self.commit([masked]), metadata: owner) { try $0.message }
            }
            #expect(badMask?.code == .invalidArgument)
            // A document over 1 MiB, in a commit with a good write: nothing is written.
            var big = Google_Firestore_V1_Value()
            big.stringValue = String(repeating: "x", count: 1_100_000)
            let tooBig = await #expect(throws: RPCError.self) {
                try await client.commit(
                    Self.commit([
                        FirestoreTestServer.update("users/ok", ["n": FirestoreTestServer.value(1)]),
                        FirestoreTestServer.update("users/big", ["s": big]),
                    ]), metadata: owner
                ) { try $0.message }
            }
            #expect(tooBig?.code == .invalidArgument)
            // A request over the server's limit (2 MiB here), each document within its own 1 MiB.
            var large = Google_Firestore_V1_Value()
            large.stringValue = String(repeating: "y", count: 900_000)
            let overLimit = await #expect(throws: RPCError.self) {
                try await client.commit(
                    Self.commit((1...3).map { FirestoreTestServer.update("users/large\($0)", ["s": large]) }),
                    metadata: owner
                ) { try $0.message }
            }
            #expect(overLimit?.code == .invalidArgument)
            #expect(overLimit?.message.contains("exceeds the limit") == true)
            // No token.
            let anonymous = await #expect(throws: RPCError.self) {
                try await client.getDocument(Self.get(FirestoreTestServer.name("users/a"))) {
                    try $0.message
                }
            }
            #expect(anonymous?.code == .unauthenticated)
        }
        // Bytes that are not a protobuf message.
        let garbage = await #expect(throws: RPCError.self) {
            try await server.withRawClient { client in
                try await client.unary(
                    request: ClientRequest(message: [0xff, 0xff, 0xff, 0x01], metadata: FirestoreTestServer.owner),
                    descriptor: Google_Firestore_V1_Firestore.Method.Commit.descriptor, serializer: RawBytes(),
                    deserializer: ProtobufDeserializer<Google_Firestore_V1_CommitResponse>(), options: .defaults
                ) { try $0.message }
            }
        }
        #expect(garbage != nil)
        let count = try await server.store.collection("users").query.count()
        #expect(count == 0)
        // Still serving.
        _ = try await server.store.document("users/after").setData(["n": 1])
        let after = try await server.withClient { client in
            try await client.getDocument(
                Self.get(FirestoreTestServer.name("users/after")), metadata: FirestoreTestServer.owner
            ) { try $0.message }
        }
        #expect(after.fields["n"]?.integerValue == 1)
        await server.stop()
    }

    @Test func userTokensMeetTheRules() async throws {
        let server = try await FirestoreTestServer.start()
        let token = try await server.accounts.add("ana")
        let metadata: Metadata = ["authorization": "Bearer \(token)"]
        try await server.withClient { client in
            _ = try await client.commit(
                Self.commit([FirestoreTestServer.update("users/ana", ["n": FirestoreTestServer.value(1)])]),
                metadata: metadata
            ) { try $0.message }
            let denied = await #expect(throws: RPCError.self) {
                try await client.commit(
                    Self.commit([
                        FirestoreTestServer.update("users/bob", ["n": FirestoreTestServer.value(1)])
                    ]), metadata: metadata
                ) { try $0.message }
            }
            #expect(denied?.code == .permissionDenied)
            let bad = await #expect(throws: RPCError.self) {
                try await client.getDocument(
                    Self.get(FirestoreTestServer.name("users/ana")),
                    metadata: ["authorization": "Bearer nope"]
                ) { try $0.message }
            }
            #expect(bad?.code == .unauthenticated)
        }
        let ana = try await server.store.document("users/ana").getDocument()
        #expect(ana.data == ["n": .int(1)])
        #expect(try await server.store.document("users/bob").getDocument().exists == false)
        await server.stop()
    }
}

/// Sends bytes as they are, to test what the server does with a malformed message.
struct RawBytes: MessageSerializer {
    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }
}
