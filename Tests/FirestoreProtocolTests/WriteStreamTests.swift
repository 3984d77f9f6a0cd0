import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import SwiftProtobuf
import Testing

/// The Write stream as the mobile SDKs drive it, through grpc-swift over a real HTTP/2 connection.
@Suite struct WriteStreamTests {
    typealias Request = Google_Firestore_V1_WriteRequest
    typealias Response = Google_Firestore_V1_WriteResponse

    /// One Write stream: `body` sends with `send` and reads answers with `next`.
    static func stream<T: Sendable>(
        _ server: FirestoreTestServer,
        _ body:
            @escaping @Sendable (_ send: @Sendable (Request) -> Void, _ next: @Sendable () async throws -> Response?)
            async throws -> T
    ) async throws -> T {
        try await server.conversation(
            { client, produce, handle in
                try await client.write(
                    metadata: FirestoreTestServer.owner, requestProducer: produce, onResponse: handle)
            }, body)
    }

    static func handshake(streamID: String = "", token: Data = Data()) -> Request {
        var request = Request()
        request.database = FirestoreTestServer.project
        request.streamID = streamID
        request.streamToken = token
        return request
    }

    static func batch(_ writes: [Google_Firestore_V1_Write], token: Data) -> Request {
        var request = Request()
        request.writes = writes
        request.streamToken = token
        return request
    }

    @Test func handshakeThenBatchesAreCommittedWithResultsAndNewTokens() async throws {
        let server = try await FirestoreTestServer.start()
        let results = try await Self.stream(server) { send, next in
            send(Self.handshake())
            let handshake = try #require(try await next())
            #expect(!handshake.streamID.isEmpty)
            #expect(!handshake.streamToken.isEmpty)
            #expect(handshake.writeResults.isEmpty)
            var increment = Google_Firestore_V1_DocumentTransform.FieldTransform()
            increment.fieldPath = "n"
            increment.increment = FirestoreTestServer.value(5)
            var first = FirestoreTestServer.update("users/a", ["n": FirestoreTestServer.value(1)])
            first.updateTransforms = [increment]
            send(
                Self.batch(
                    [first, FirestoreTestServer.update("users/b", ["n": FirestoreTestServer.value(2)])],
                    token: handshake.streamToken))
            let answer = try #require(try await next())
            #expect(answer.writeResults.count == 2)
            #expect(answer.writeResults[0].transformResults == [FirestoreTestServer.value(6)])
            #expect(answer.streamToken != handshake.streamToken)
            #expect(answer.commitTime.seconds > 0)
            return answer.writeResults.count
        }
        #expect(results == 2)
        let stored = try await server.store.getDocuments([try DocumentPath("users/a"), try DocumentPath("users/b")])
        #expect(stored.map { $0.data?["n"] } == [.int(6), .int(2)])
        await server.stop()
    }

    @Test func aReconnectWithTheLastTokenGetsTheAnswersItMissed() async throws {
        let server = try await FirestoreTestServer.start()
        // First connection: two batches answered; the client saw only the first answer's token, then the
        // connection dropped.
        let (streamID, firstToken, secondAnswer) = try await Self.stream(server) { send, next in
            send(Self.handshake())
            let handshake = try #require(try await next())
            send(
                Self.batch(
                    [FirestoreTestServer.update("users/a", ["n": FirestoreTestServer.value(1)])],
                    token: handshake.streamToken))
            let first = try #require(try await next())
            send(
                Self.batch(
                    [FirestoreTestServer.update("users/b", ["n": FirestoreTestServer.value(2)])],
                    token: first.streamToken))
            let second = try #require(try await next())
            return (handshake.streamID, first.streamToken, second)
        }
        // Second connection: resume the stream after the first token; the second answer comes again.
        let replayed = try await Self.stream(server) { send, next in
            send(Self.handshake(streamID: streamID, token: firstToken))
            return try #require(try await next())
        }
        #expect(replayed == secondAnswer)
        // An unknown stream is refused with a clear status, and the server goes on serving.
        await #expect(throws: RPCError.self) {
            try await Self.stream(server) { send, next in
                send(Self.handshake(streamID: "no-such-stream", token: firstToken))
                return try await next()
            }
        }
        let count = try await server.store.collection("users").query.count()
        #expect(count == 2)
        await server.stop()
    }

    @Test func aFailedBatchEndsTheStreamWithItsStatusAndWritesNothing() async throws {
        let server = try await FirestoreTestServer.start()
        let error = await #expect(throws: RPCError.self) {
            try await Self.stream(server) { send, next in
                send(Self.handshake())
                let handshake = try #require(try await next())
                var update = FirestoreTestServer.update("users/missing", ["n": FirestoreTestServer.value(1)])
                update.currentDocument.exists = true
                send(
                    Self.batch(
                        [FirestoreTestServer.update("users/c", ["n": FirestoreTestServer.value(1)]), update],
                        token: handshake.streamToken))
                return try await next()
            }
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("No document to update") == true)
        let count = try await server.store.collection("users").query.count()
        #expect(count == 0)
        await server.stop()
    }
}

/// A response stream read one message at a time by the test's closures (one reader at a time: a test reads its
/// answers in order).
final class Messages<Element: Sendable>: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<Element, any Error>.AsyncIterator

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let (stream, sink) = AsyncThrowingStream<Element, any Error>.makeStream()
        iterator = stream.makeAsyncIterator()
        Task {
            do {
                for try await element in sequence { sink.yield(element) }
                sink.finish()
            } catch { sink.finish(throwing: error) }
        }
    }

    func next() async throws -> Element? { try await iterator.next() }
}
