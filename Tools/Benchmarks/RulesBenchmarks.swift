import AsyncHTTPClient
import Documents
import Foundation
import NIOCore
import NIOHTTP1
import SuiteServer

/// `suite-bench rules`: a write through the JSON API checked by a Firestore rule of five conditions on the data,
/// beside the same write under path-only rules, from the same run (two servers, each on a store of its own).
enum RulesBenchmarks {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /users/{uid}/items/{item} {
              allow write: if request.auth != null
                && request.auth.uid == uid
                && request.resource.data.points is int
                && request.resource.data.points >= 0
                && request.resource.data.keys().hasOnly(['name', 'points', 'tags']);
              allow read: if request.auth.uid == uid;
            }
            // The same five conditions, one of them on the stored document: each write reads it first.
            match /users/{uid}/logs/{item} {
              allow write: if request.auth.uid == uid
                && request.resource.data.points is int
                && request.resource.data.points >= 0
                && request.resource.data.keys().hasOnly(['name', 'points', 'tags'])
                && (resource == null || resource.data.name == request.resource.data.name);
            }
          }
        }
        """

    static func run(scale: Double) async throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-rules-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let token = try await accounts.add("bench")
        func server(_ name: String, _ rules: ServerRules) throws -> (SuiteServer, DocumentStore) {
            let store = DocumentStore(
                engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("\(name).sqlite").path))
            return (SuiteServer(store: store, accounts: accounts, rules: rules, configuration: .init(port: 0)), store)
        }
        let (checked, checkedStore) = try server("checked", .firestore(try FirestoreRules(source: rules)))
        let (paths, pathsStore) = try server("paths", .standard)
        let (checkedPort, checkedTask) = try await FirestoreBenchmarks.start { try await checked.run(onRunning: $0) }
        let (pathsPort, pathsTask) = try await FirestoreBenchmarks.start { try await paths.run(onRunning: $0) }
        defer {
            checkedTask.cancel()
            pathsTask.cancel()
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        let total = max(400, Int(4_000 * scale))
        let concurrency = 16
        func writes(_ port: Int, _ collection: String = "items") async throws -> Double {
            let counter = Counter()
            return try await FirestoreBenchmarks.rate(total: total, concurrency: concurrency) {
                var request = HTTPClientRequest(
                    url: "http://127.0.0.1:\(port)/v1/docs/users/bench/\(collection)/d\(counter.next())")
                request.method = .PUT
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.body = .bytes(ByteBuffer(string: #"{"data":{"name":"Ana","points":25,"tags":["a"]}}"#))
                let response = try await http.execute(request, timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
                guard response.status == .ok else {
                    throw AnalyticsBenchmarks.BenchFailure("the server answered \(response.status)")
                }
            }
        }
        // Warm both, then alternate: the peer and ours each measured twice, the better run kept.
        _ = try await writes(pathsPort)
        _ = try await writes(checkedPort)
        var ours = 0.0
        var peer = 0.0
        var reading = 0.0
        for _ in 0..<2 {
            peer = max(peer, try await writes(pathsPort))
            ours = max(ours, try await writes(checkedPort))
            reading = max(reading, try await writes(checkedPort, "logs"))
        }
        try await http.shutdown()
        checkedTask.cancel()
        pathsTask.cancel()
        _ = try? await checkedTask.value
        _ = try? await pathsTask.value
        await checkedStore.close()
        await pathsStore.close()
        try? accounts.close()
        return [
            BenchResult(
                name: "PUT of one document, \(concurrency) concurrent, a rule of 5 conditions on the data",
                ours: ours, peer: peer,
                peerName: "the same write under path-only rules (users/{uid}/**), same run", unit: "writes/s",
                target: "≥ 0.8"),
            BenchResult(
                name: "PUT of one document, 16 concurrent, 5 conditions, one on the stored document", ours: reading,
                peer: peer, peerName: "the same write under path-only rules (users/{uid}/**), same run",
                unit: "writes/s", target: nil),
        ]
    }
}
