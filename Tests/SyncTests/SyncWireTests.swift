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
}
