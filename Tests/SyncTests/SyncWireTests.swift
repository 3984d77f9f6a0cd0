import Documents
import Foundation
import SuiteCore
import Testing

@testable import Sync

/// The push's JSON on the wire (read and written through `JSONValue`, not Foundation's coders) and the ids of the
/// replica's acknowledgement records.
@Suite struct SyncWireTests {
    @Test func aPushRequestRoundTripsThroughItsJSONTextWithIntegersAndFractionsApart() throws {
        let request = SyncPushRequest(
            client: "c1",
            mutations: [
                SyncMutation(
                    id: "m1",
                    writes: [
                        ["op": "set", "path": "users/ana", "data": ["n": 1, "x": 1.5, "tags": ["a", "b"]]],
                        ["op": "update", "path": "users/bob", "transforms": ["points": ["increment": 1]]],
                    ]),
                SyncMutation(id: "m2", writes: [["op": "delete", "path": "users/ana"]]),
            ])
        let text = request.json.jsonString
        let read = try SyncPushRequest(json: try JSONValue(parsing: text))
        #expect(read == request)
        #expect(read.mutations[0].writes[0]["data"]?["n"] == .int(1))
        #expect(read.mutations[0].writes[0]["data"]?["x"] == .double(1.5))
        // The same text still decodes with Foundation's coder, as a client of an earlier version reads it.
        #expect(try JSONDecoder().decode(SyncPushRequest.self, from: Data(text.utf8)) == request)
    }

    @Test func aMalformedPushBodyIsInvalidInputNamingTheMember() throws {
        let cases: [(JSONValue, String)] = [
            (["mutations": []], "client"),
            (["client": "c1"], "mutations"),
            (["client": "c1", "mutations": [["writes": []]]], "mutations[0].id"),
            (["client": "c1", "mutations": [["id": "m1", "writes": "x"]]], "mutations[0].writes"),
            ([1, 2], "a list"),
        ]
        for (json, member) in cases {
            let error = try #require(throws: SyncError.self) { try SyncPushRequest(json: json) }
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(member), "\(error.message)")
        }
    }

    @Test func aPushResponseRoundTripsThroughItsJSONTextAndLeavesAbsentMembersOut() throws {
        let response = SyncPushResponse(results: [
            .init(id: "m1", status: .applied, sequence: 42),
            .init(id: "m2", status: .duplicate, sequence: 7),
            .init(id: "m3", status: .rejected, message: "users/bob is not yours"),
        ])
        let text = response.json.jsonString
        #expect(try SyncPushResponse(json: try JSONValue(parsing: text)) == response)
        #expect(
            try JSONValue(parsing: text)["results"]?.arrayValue?[2].objectValue?.keys.sorted() == [
                "id", "message", "status",
            ])
        // Foundation's coder reads it too (an earlier client), and what it writes reads back (an earlier server).
        #expect(try JSONDecoder().decode(SyncPushResponse.self, from: Data(text.utf8)) == response)
        let earlier = try JSONEncoder().encode(response)
        #expect(try SyncPushResponse(json: try JSONValue(parsing: earlier)) == response)
    }

    @Test func aPushResponseWithAnUnknownStatusIsAProtocolError() throws {
        let json: JSONValue = ["results": [["id": "m1", "status": "maybe"]]]
        let error = try #require(throws: SyncError.self) { try SyncPushResponse(json: json) }
        #expect(error.code == .protocolError)
        #expect(error.message.contains("results[0].status"), "\(error.message)")
    }

    @Test func anAcknowledgementsIdIsThePathInUnpaddedBase64URL() {
        // Persisted ids: they must stay what earlier versions wrote (base64, then + → -, / → _, = dropped).
        for path in ["users/ana", "users/ana/items/1", "a/b", "users/ü?>>/x", "w/~~~~", "users/ab"] {
            let expected = Data(path.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(SyncClient.ackPath(path) == "_sync/state/acks/" + expected)
        }
        #expect(SyncClient.ackPath("w/~~~~") == "_sync/state/acks/dy9-fn5-")
        #expect(SyncClient.ackPath("users/ü?>>/x") == "_sync/state/acks/dXNlcnMvw7w_Pj4veA")
    }

    @Test func aChangeFeedPageAsTheServerWritesItReadsBackWithDeletionsAsNil() throws {
        let page = SyncChangesResponse(
            changes: [
                SyncChange(sequence: 7, path: "users/ana", data: ["n": 1, "x": 1.5, "tags": ["a"], "note": .null]),
                SyncChange(sequence: 8, path: "users/bob", data: nil),
            ],
            sequence: 9, more: true)
        // The server writes it with Foundation's encoder.
        let read = try SyncChangesResponse(json: try JSONValue(parsing: try JSONEncoder().encode(page)))
        #expect(read == page)
        #expect(read.changes[0].data?["x"] == .double(1.5))
        #expect(
            try SyncChangesResponse(json: [
                "changes": [["sequence": 1, "path": "a/b", "data": .null]], "sequence": 1, "more": false,
            ]).changes.first?.data == nil)
    }

    @Test func aSnapshotPageAsTheServerWritesItReadsBack() throws {
        let last = SyncSnapshotResponse(
            documents: [.init(path: "users/ana", data: ["n": 1]), .init(path: "users/ana/items/1", data: [:])],
            sequence: 12, next: nil)
        #expect(try SyncSnapshotResponse(json: try JSONValue(parsing: try JSONEncoder().encode(last))) == last)
        let more = SyncSnapshotResponse(documents: [], sequence: 3, next: "users/ana/items/1")
        #expect(try SyncSnapshotResponse(json: try JSONValue(parsing: try JSONEncoder().encode(more))) == more)
    }

    @Test func aMalformedPageIsAProtocolErrorNamingTheMember() throws {
        let changes: [(JSONValue, String)] = [
            (["sequence": 1, "more": false], "changes must be a list"),
            (["changes": [], "more": false], "sequence"),
            (["changes": [], "sequence": 1], "more"),
            (["changes": [["path": "a/b"]], "sequence": 1, "more": false], "changes[0].sequence"),
            (["changes": [["sequence": 1, "path": 5]], "sequence": 1, "more": false], "changes[0].path"),
        ]
        for (json, member) in changes {
            let error = try #require(throws: SyncError.self) { try SyncChangesResponse(json: json) }
            #expect(error.code == .protocolError)
            #expect(error.message.contains(member), "\(error.message)")
        }
        let snapshots: [(JSONValue, String)] = [
            (["sequence": 1], "documents must be a list"),
            (["documents": [], "sequence": "1"], "sequence"),
            (["documents": [], "sequence": 1, "next": 2], "next"),
            (["documents": [["data": [:]]], "sequence": 1], "documents[0].path"),
            (["documents": [["path": "a/b"]], "sequence": 1], "documents[0].data"),
        ]
        for (json, member) in snapshots {
            let error = try #require(throws: SyncError.self) { try SyncSnapshotResponse(json: json) }
            #expect(error.code == .protocolError)
            #expect(error.message.contains(member), "\(error.message)")
        }
    }

    @Test func aMissingDocumentThroughTheInProcessTransportIsNoneNotJSONNull() async throws {
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        _ = try await store.document("users/ana").setData(["n": 1])
        let transport = InProcessSyncTransport(host: SyncHost(store: store))
        let missing = try await transport.document("users/bob")
        #expect(missing == Optional<JSONValue>.none, "\(String(describing: missing))")
        #expect(try await transport.document("users/ana") == ["n": 1])
        await store.close()
    }
}
