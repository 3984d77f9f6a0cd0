import FirestoreProtocol
import Foundation
import GRPCCore
import SwiftProtobuf
import Testing

/// Timestamps outside Firestore's range (0001 to 9999) are INVALID_ARGUMENT, in a value and in an update_time
/// precondition: their microseconds do not fit in 64 bits, and computing them used to trap the server (found by
/// `make fuzz`, harness `firestore`; Tools/fuzz/FINDINGS.md).
@Suite struct TimestampRangeTests {
    /// The fuzzer's input: a CommitRequest whose one write sets a timestamp of 2^63 - 1 seconds.
    static let hugeTimestampCommit: [UInt8] = {
        var time = Google_Protobuf_Timestamp()
        time.seconds = .max
        var value = Google_Firestore_V1_Value()
        value.timestampValue = time
        var request = ProtocolEdgeTests.commit([FirestoreTestServer.update("times/a", ["t": value])])
        request.database = FirestoreTestServer.project
        return (try? request.serializedBytes()) ?? []
    }()

    @Test func aTimestampPastYear9999IsInvalidArgumentAndTheServerGoesOn() async throws {
        let server = try await FirestoreTestServer.start()
        try await server.withClient { client in
            let request = try Google_Firestore_V1_CommitRequest(serializedBytes: Self.hugeTimestampCommit)
            let refused = await #expect(throws: RPCError.self) {
                try await client.commit(request, metadata: FirestoreTestServer.owner) { try $0.message }
            }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.message.contains("out of range") == true)
            // The same request with the last second of 9999 is accepted.
            var last = request
            last.writes[0].update.fields["t"]?.timestampValue.seconds = 253_402_300_799
            _ = try await client.commit(last, metadata: FirestoreTestServer.owner) { try $0.message }
        }
    }

    @Test func anUpdateTimePreconditionBeforeYear1IsInvalidArgument() async throws {
        let server = try await FirestoreTestServer.start()
        try await server.withClient { client in
            var write = FirestoreTestServer.update("times/b", ["n": FirestoreTestServer.value(1)])
            write.currentDocument.updateTime.seconds = .min
            let refused = await #expect(throws: RPCError.self) {
                try await client.commit(ProtocolEdgeTests.commit([write]), metadata: FirestoreTestServer.owner) {
                    try $0.message
                }
            }
            #expect(refused?.code == .invalidArgument)
        }
    }
}
