import AsyncHTTPClient
import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf
import NIOCore
import NIOHTTP1
import SuiteCore
import SuiteServer
import SwiftProtobuf
import Synchronization

/// `suite-bench firestore`: Firestore's protocol served by Suite, beside peers from the same run: GetDocument under
/// 64 concurrent calls against a bare grpc-swift handler answering the same bytes; a one-write Commit against the
/// same write through the JSON API; the time from a commit to its change at 100 Listen streams against the store's
/// own listeners. Servers and clients run in this process, on loopback, the same way for ours and the peers.
enum FirestoreBenchmarks {
    typealias Client = Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>
    static let database = "projects/bench/databases/(default)"
    static let owner: Metadata = ["authorization": "Bearer owner"]

    static func run(scale: Double) async throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-fs-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let token = try await accounts.add("bench", admin: true)
        let firestore = try FirestoreServer(
            store: store, accounts: accounts, rules: .standard, configuration: .init(port: 0, acceptOwnerToken: true),
            openDatabase: { _, _ in nil })
        let json = SuiteServer(store: store, accounts: accounts, configuration: .init(port: 0))
        let (firestorePort, firestoreTask) = try await start { try await firestore.run(onRunning: $0) }
        let (jsonPort, jsonTask) = try await start { try await json.run(onRunning: $0) }
        defer {
            firestoreTask.cancel()
            jsonTask.cancel()
        }
        _ = try await store.document("users/ana").setData(
            ["name": "Ana", "points": 25, "tags": ["coffee", "tea"], "city": "Lyon"])
        var results: [BenchResult] = []
        results.append(try await getDocument(firestorePort: firestorePort, store: store, scale: scale))
        results.append(try await commit(firestorePort: firestorePort, jsonPort: jsonPort, token: token, scale: scale))
        results.append(try await listen(firestorePort: firestorePort, store: store, scale: scale))
        firestoreTask.cancel()
        jsonTask.cancel()
        _ = try? await firestoreTask.value
        _ = try? await jsonTask.value
        await store.close()
        try? accounts.close()
        return results
    }

    /// Starts a server task; its port once it listens.
    static func start(_ body: @escaping @Sendable (@escaping @Sendable (Int) async -> Void) async throws -> Void)
        async throws -> (Int, Task<Void, any Error>)
    {
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let task = Task { try await body { sink.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return (port, task)
    }

    static func withClient<T: Sendable>(_ port: Int, _ body: @escaping @Sendable (Client) async throws -> T)
        async throws -> T
    {
        try await withGRPCClient(
            transport: .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        ) { client in try await body(Client(wrapping: client)) }
    }

    /// Calls per second of `call`, from `concurrency` tasks making `total` calls in all; the best of three runs.
    static func rate(total: Int, concurrency: Int, _ call: @escaping @Sendable () async throws -> Void) async throws
        -> Double
    {
        try await bestRate(operations: total, repeats: 3) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<concurrency {
                    let share = total / concurrency + (worker < total % concurrency ? 1 : 0)
                    group.addTask { for _ in 0..<share { try await call() } }
                }
                try await group.waitForAll()
            }
        }
    }

    // MARK: GetDocument

    static func getDocument(firestorePort: Int, store: DocumentStore, scale: Double) async throws -> BenchResult {
        let total = max(2_000, Int(40_000 * scale))
        var get = Google_Firestore_V1_GetDocumentRequest()
        get.name = database + "/documents/users/ana"
        let request = get
        let answer = try await withClient(firestorePort) { client in
            try await client.getDocument(request, metadata: owner)
        }
        // The peer: a bare grpc-swift server whose one method answers the same document's bytes.
        let bare = GRPCServer(
            transport: .http2NIOPosix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
            services: [BareGetDocument(answer: answer)])
        let bareTask = Task { try await bare.serve() }
        defer { bare.beginGracefulShutdown() }
        guard let barePort = try await bare.listeningAddress?.ipv4?.port else {
            throw AnalyticsBenchmarks.BenchFailure("the bare gRPC server did not listen")
        }
        let ours = try await withClient(firestorePort) { client in
            try await rate(total: total, concurrency: 64) { _ = try await client.getDocument(request, metadata: owner) }
        }
        let peer = try await withClient(barePort) { client in
            try await rate(total: total, concurrency: 64) { _ = try await client.getDocument(request, metadata: owner) }
        }
        bare.beginGracefulShutdown()
        _ = try? await bareTask.value
        return BenchResult(
            name: "GetDocument over gRPC, 64 concurrent calls (\(total) calls)", ours: ours, peer: peer,
            peerName: "a bare grpc-swift unary handler answering the same bytes, same client", unit: "calls/s",
            target: "≥ 0.5")
    }

    // MARK: Commit

    static func commit(firestorePort: Int, jsonPort: Int, token: String, scale: Double) async throws -> BenchResult {
        let total = max(400, Int(4_000 * scale))
        let concurrency = 16
        let counter = Counter()
        let ours = try await withClient(firestorePort) { client in
            try await rate(total: total, concurrency: concurrency) {
                var write = Google_Firestore_V1_Write()
                write.update.name = database + "/documents/grpc/d\(counter.next())"
                var value = Google_Firestore_V1_Value()
                value.integerValue = 1
                write.update.fields = ["n": value, "name": .with { $0.stringValue = "Ana" }]
                var request = Google_Firestore_V1_CommitRequest()
                request.database = database
                request.writes = [write]
                _ = try await client.commit(request, metadata: owner)
            }
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = http.shutdown() }
        let peer = try await rate(total: total, concurrency: concurrency) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(jsonPort)/v1/docs/json/d\(counter.next())")
            request.method = .PUT
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.body = .bytes(ByteBuffer(string: #"{"data":{"n":1,"name":"Ana"}}"#))
            let response = try await http.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 1 << 20)
            guard response.status == .ok else {
                throw AnalyticsBenchmarks.BenchFailure("the JSON API answered \(response.status)")
            }
        }
        try await http.shutdown()
        return BenchResult(
            name: "Commit of one write, \(concurrency) concurrent (\(total) commits)", ours: ours, peer: peer,
            peerName: "the same write through the JSON API (PUT /v1/docs, AsyncHTTPClient)", unit: "commits/s",
            target: "≥ 0.7")
    }

    // MARK: Listen

    /// The median time from a commit to its change at every one of 100 listeners: 100 Listen streams on one
    /// document target, against 100 of the store's own listeners on the same document.
    static func listen(firestorePort: Int, store: DocumentStore, scale: Double) async throws -> BenchResult {
        let rounds = max(5, Int(20 * scale))
        let listeners = 100
        let name = database + "/documents/rooms/live"
        _ = try await store.document("rooms/live").setData(["n": 0])
        let ours: Double = try await withClient(firestorePort) { client in
            let arrivals = Arrivals(expected: listeners)
            return try await withThrowingTaskGroup(of: Void.self, returning: Double.self) { group in
                for _ in 0..<listeners {
                    group.addTask {
                        let (requests, feed) = AsyncStream<Google_Firestore_V1_ListenRequest>.makeStream()
                        var add = Google_Firestore_V1_ListenRequest()
                        add.database = database
                        add.addTarget.targetID = 1
                        add.addTarget.documents.documents = [name]
                        feed.yield(add)
                        try await client.listen(
                            metadata: owner,
                            requestProducer: { writer in
                                for await request in requests { try await writer.write(request) }
                            }
                        ) { response in
                            for try await message in response.messages {
                                if case .documentChange(let change)? = message.responseType {
                                    await arrivals.arrived(change.document.fields["n"]?.integerValue ?? -1)
                                }
                            }
                        }
                    }
                }
                let median = try await measure(rounds: rounds, store: store, arrivals: arrivals)
                group.cancelAll()
                return median
            }
        }
        let arrivals = Arrivals(expected: listeners)
        let peer = try await withThrowingTaskGroup(of: Void.self, returning: Double.self) { group in
            for _ in 0..<listeners {
                group.addTask {
                    for try await snapshot in try store.document("rooms/live").snapshots() {
                        if case .int(let n)? = snapshot.get("n") { await arrivals.arrived(n) }
                    }
                }
            }
            let median = try await measure(rounds: rounds, store: store, arrivals: arrivals)
            group.cancelAll()
            return median
        }
        // Reported as changes per second (1 / median latency), so higher is better as for every other row.
        return BenchResult(
            name: "Listen: commit → change at all \(listeners) streams (median of \(rounds); 1/s)",
            ours: 1 / max(ours, 1e-9), peer: 1 / max(peer, 1e-9),
            peerName: "100 of the store's own in-process listeners on the same document", unit: "/s", target: nil)
    }

    /// Commits `rounds` changes; the median seconds until all listeners saw each.
    static func measure(rounds: Int, store: DocumentStore, arrivals: Arrivals) async throws -> Double {
        var times: [Double] = []
        // The first value every listener sees is the document as it is: wait for all of them first.
        let current = try await store.document("rooms/live").getDocument().get("n")
        if case .int(let n)? = current { try await arrivals.wait(for: n) }
        for round in 0..<rounds {
            let value = Int64(1_000_000 + round + Int.random(in: 0..<1_000) * 1_000)
            let start = ContinuousClock.now
            _ = try await store.document("rooms/live").setData(["n": .int(value)])
            try await arrivals.wait(for: value)
            times.append(AnalyticsBenchmarks.seconds(ContinuousClock.now - start))
        }
        times.sort()
        return times[times.count / 2]
    }
}

/// Counts arrivals of each value until every listener has seen it.
actor Arrivals {
    let expected: Int
    private var counts: [Int64: Int] = [:]
    private var waiting: [Int64: CheckedContinuation<Void, any Error>] = [:]

    init(expected: Int) { self.expected = expected }

    func arrived(_ value: Int64) {
        counts[value, default: 0] += 1
        if counts[value] == expected { waiting.removeValue(forKey: value)?.resume() }
    }

    func wait(for value: Int64) async throws {
        if counts[value, default: 0] >= expected { return }
        try await withCheckedThrowingContinuation { waiting[value] = $0 }
    }
}

/// A shared counter for unique document ids.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).newValue }
}

/// The peer of GetDocument: grpc-swift's own server with one unary method answering fixed bytes.
struct BareGetDocument: RegistrableRPCService {
    let answer: Google_Firestore_V1_Document

    func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
        let answer = answer
        router.registerHandler(
            forMethod: Google_Firestore_V1_Firestore.Method.GetDocument.descriptor,
            deserializer: ProtobufDeserializer<Google_Firestore_V1_GetDocumentRequest>(),
            serializer: ProtobufSerializer<Google_Firestore_V1_Document>()
        ) { request, context in
            _ = try await request.messages.reduce(0) { count, _ in count + 1 }
            return StreamingServerResponse(single: ServerResponse(message: answer))
        }
    }
}
