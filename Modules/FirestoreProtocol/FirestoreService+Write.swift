import Documents
import Foundation
import GRPCCore
import SuiteServer
import Synchronization

/// The answers of Write streams not yet acknowledged, by stream id, so that a client reconnecting with its stream id
/// and last token gets the answers it missed (5 minutes, at most 256 answers a stream).
final class FirestoreWriteStreams: Sendable {
    private struct Stream {
        var unacknowledged: [(sequence: UInt64, response: Google_Firestore_V1_WriteResponse)] = []
        var lastUsed = ContinuousClock.now
        var sequence: UInt64 = 0
    }

    private let streams = Mutex<[String: Stream]>([:])

    static func token(_ sequence: UInt64) -> Data { withUnsafeBytes(of: sequence.bigEndian) { Data($0) } }

    static func sequence(_ token: Data) -> UInt64? {
        guard token.count == 8 else { return nil }
        return token.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A new stream's id.
    func open() -> String {
        let id = UUID().uuidString.lowercased()
        let now = ContinuousClock.now
        streams.withLock { streams in
            streams = streams.filter { now - $0.value.lastUsed < .seconds(300) }
            streams[id] = Stream()
        }
        return id
    }

    /// Resumes `id` after `token`: the answers the client has not seen, and the stream's sequence; nil when the
    /// stream is unknown (expired) or the token is not one of it.
    func resume(_ id: String, after token: Data) -> (missed: [Google_Firestore_V1_WriteResponse], sequence: UInt64)? {
        guard let acknowledged = Self.sequence(token) else { return nil }
        return streams.withLock { streams in
            guard var stream = streams[id], acknowledged <= stream.sequence else { return nil }
            stream.unacknowledged.removeAll { $0.sequence <= acknowledged }
            stream.lastUsed = .now
            streams[id] = stream
            return (stream.unacknowledged.map(\.response), stream.sequence)
        }
    }

    /// Records the client's acknowledgement of everything up to `token`.
    func acknowledge(_ id: String, _ token: Data) {
        guard let acknowledged = Self.sequence(token) else { return }
        streams.withLock { $0[id]?.unacknowledged.removeAll { $0.sequence <= acknowledged } }
    }

    /// The next answer of stream `id`, with its token, kept until acknowledged.
    func answer(_ id: String, _ response: Google_Firestore_V1_WriteResponse) -> Google_Firestore_V1_WriteResponse {
        streams.withLock { streams in
            var stream = streams[id] ?? Stream()
            stream.sequence += 1
            var response = response
            response.streamID = id
            response.streamToken = Self.token(stream.sequence)
            stream.unacknowledged.append((stream.sequence, response))
            if stream.unacknowledged.count > 256 { stream.unacknowledged.removeFirst() }
            stream.lastUsed = .now
            streams[id] = stream
            return response
        }
    }
}

extension FirestoreService {
    /// The Write stream as the mobile SDKs drive it: a handshake (database, no writes) answered with a stream id
    /// and token; then batches of writes, each committed atomically and answered with its results and a new token;
    /// a reconnect with the stream id and last token gets the answers it missed.
    func write(
        request: StreamingServerRequest<Google_Firestore_V1_WriteRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_WriteResponse> {
        let caller: ServerAccounts.Account
        do { caller = try await streamCaller("Write", request.metadata) } catch {
            return StreamingServerResponse(error: error)
        }
        return StreamingServerResponse { writer in
            var database: Database?
            var streamID = ""
            do {
                for try await message in request.messages {
                    guard let open = database else {
                        let opened = try await self.database(message.database, what: "database", caller: caller)
                        database = opened
                        if !message.streamID.isEmpty {
                            guard let (missed, _) = writeStreams.resume(message.streamID, after: message.streamToken)
                            else {
                                throw RPCError(
                                    code: .invalidArgument,
                                    message: "Unknown stream_id or stream_token: start a new stream without them")
                            }
                            streamID = message.streamID
                            try await writer.write(contentsOf: missed)
                        } else {
                            streamID = writeStreams.open()
                            var handshake = Google_Firestore_V1_WriteResponse()
                            handshake.streamID = streamID
                            handshake.streamToken = FirestoreWriteStreams.token(0)
                            try await writer.write(handshake)
                        }
                        if !message.writes.isEmpty {
                            try await writer.write(try await apply(message, database: opened, streamID, caller))
                        }
                        continue
                    }
                    if !message.streamToken.isEmpty { writeStreams.acknowledge(streamID, message.streamToken) }
                    guard !message.writes.isEmpty else { continue }
                    try await writer.write(try await apply(message, database: open, streamID, caller))
                }
                metrics.recordCall(method: "Write", code: "OK")
            } catch {
                throw failure("Write", error, names: database?.names)
            }
            return [:]
        }
    }

    private func apply(
        _ message: Google_Firestore_V1_WriteRequest, database: Database, _ streamID: String,
        _ caller: ServerAccounts.Account
    ) async throws -> Google_Firestore_V1_WriteResponse {
        let committed = try await commit(message.writes, in: database, transaction: nil, caller: caller)
        var response = Google_Firestore_V1_WriteResponse()
        response.writeResults = committed.writeResults
        response.commitTime = committed.commitTime
        return writeStreams.answer(streamID, response)
    }
}
