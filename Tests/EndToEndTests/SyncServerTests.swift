import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Sync
import Testing
import TransportTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// Replicas syncing through a real `suite serve` process over HTTP, with the server stopped and restarted.
    @Suite("sync through suite serve (real binary)")
    struct SyncServerTests {
        final class Server {
            let suite: SuiteRunner
            var process: RunningSuite?
            var port = 0

            init() throws { suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-sync")) }

            func token(_ uid: String, admin: Bool = false) throws -> String {
                let result = try suite.run(["users", "add", uid, "--json"] + (admin ? ["--admin"] : []))
                return (try? JSONValue(parsing: result.stdout))?["token"]?.stringValue ?? ""
            }

            func start() {
                guard let process = try? suite.start(["serve", "--port", "\(port)", "--json"]) else { return }
                self.process = process
                let line = process.readLine() ?? ""
                port = Int((try? JSONValue(parsing: line))?["port"]?.intValue ?? 0)
            }

            func stop() -> Int32? {
                process?.send(SIGTERM)
                defer { process = nil }
                return process?.wait()
            }

            var url: String { "http://127.0.0.1:\(port)" }
        }

        /// A replica named `name` syncing with `server` over a transport of `kind` (as `suite` configures
        /// AsyncHTTPClient's: a refused connection is offline at once).
        static func replica(
            _ kind: TransportKind, _ server: Server, _ name: String, token: String, bus: EventBus? = nil
        ) async throws -> SyncClient {
            let path = server.suite.directory.appendingPathComponent("\(name).sqlite").path
            let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path), bus: bus)
            let http = kind.make(timeout: .seconds(40), connectTimeout: .seconds(3), retryRefusedConnections: false)
            return try await SyncClient(
                store: store, transport: try HTTPSyncTransport(baseURL: server.url, token: token, http: http))
        }

        static func increment(_ path: String) -> JSONValue {
            .object(["op": "update", "path": .string(path), "transforms": ["points": ["increment": 1]]])
        }

        @Test(arguments: TransportKind.allCases) func offlineReplicasConvergeThroughARestartedServer(
            _ kind: TransportKind
        ) async throws {
            let server = try Server()
            let token = try server.token("ana")
            server.start()
            #expect(server.port > 0)
            let a = try await Self.replica(kind, server, "a", token: token)
            let b = try await Self.replica(kind, server, "b", token: token)
            try await a.write([.object(["op": "set", "path": "users/ana", "data": ["points": 0, "name": "Ana"]])])
            try await a.write([.object(["op": "set", "path": "users/ana/notes/old", "data": ["x": 1]])])
            try await a.sync()
            try await b.sync()
            #expect(try await b.store.document("users/ana").getDocument().data?["name"] == "Ana")

            #expect(server.stop() == 0)
            for _ in 0..<5 {
                try await a.write([Self.increment("users/ana")])
                try await b.write([Self.increment("users/ana")])
            }
            try await a.write([.object(["op": "update", "path": "users/ana", "data": ["city": "Lyon"]])])
            try await b.write([.object(["op": "update", "path": "users/ana", "data": ["team": "blue"]])])
            try await a.write([.object(["op": "set", "path": "users/ana/notes/new", "data": ["by": "a"]])])
            try await b.write([.object(["op": "delete", "path": "users/ana/notes/old"])])
            do {
                try await a.sync()
                Issue.record("a sync succeeded with the server stopped")
            } catch let error as SyncError {
                #expect(error.code == .offline)
            }
            #expect(a.status.offline && a.status.pending == 7)

            server.start()
            try await a.sync()
            try await b.sync()
            try await a.sync()
            let ana = try await a.store.document("users/ana").getDocument().data
            #expect(ana?["points"] == .int(10) && ana?["city"] == "Lyon" && ana?["team"] == "blue")
            for replica in [a, b] {
                #expect(try await replica.store.document("users/ana").getDocument().data == ana)
                #expect(try await replica.store.document("users/ana/notes/new").getDocument().exists)
                #expect(!(try await replica.store.document("users/ana/notes/old").getDocument().exists))
                #expect(replica.status.pending == 0)
            }
            // A fresh replica reads the server's state from the change feed.
            let c = try await Self.replica(kind, server, "c", token: token)
            try await c.sync()
            #expect(try await c.store.document("users/ana").getDocument().data == ana)
            #expect(server.stop() == 0)
        }

        /// The command line: `--remote` makes each client's store a replica; `docs` and `work` need no sync code.
        @Test func cliClientsWorkOfflineAndConverge() throws {
            let server = try Server()
            let token = try server.token("ana")
            server.start()
            let remote = ["--remote", server.url, "--token", token]
            func client(_ name: String, _ arguments: [String]) throws -> CommandResult {
                let directory = server.suite.directory.appendingPathComponent(name).path
                return try server.suite.run(["--data-dir", directory] + remote + arguments)
            }
            #expect(try client("one", ["docs", "set", "users/ana", #"{"points":0}"#]).status == 0)
            let first = try client("two", ["docs", "get", "users/ana", "--json"])
            #expect((try? JSONValue(parsing: first.stdout))?["data"]?["points"] == 0, "\(first.stdout) \(first.stderr)")
            #expect(server.stop() == 0)

            for name in ["one", "two"] {
                for _ in 0..<3 {
                    let result = try client(name, ["docs", "update", "users/ana", "--increment", "points=1"])
                    #expect(result.status == 0, "\(result.stderr)")
                    #expect(result.stderr.contains("wait in the outbox"), "\(result.stderr)")
                }
            }
            #expect(try client("one", ["docs", "update", "users/ana", #"{"city":"Lyon"}"#]).status == 0)
            #expect(try client("two", ["docs", "update", "users/ana", #"{"team":"blue"}"#]).status == 0)
            let work = try client("one", ["work", "start", "--user", "ana", "--at", "00:01"])
            #expect(work.status == 0, "\(work.stderr)")
            let offline = try client("one", ["sync", "status", "--json"])
            let status = try JSONValue(parsing: offline.stdout)
            #expect(status["pending"]?.intValue == 5 && status["offline"] == true, "\(offline.stdout)")

            server.start()
            #expect(try client("one", ["sync", "now"]).status == 0)
            #expect(try client("two", ["sync", "now"]).status == 0)
            #expect(try client("one", ["sync", "now"]).status == 0)
            for name in ["one", "two"] {
                let ana = try JSONValue(parsing: try client(name, ["docs", "get", "users/ana", "--json"]).stdout)
                #expect(ana["data"]?["points"] == 6 && ana["data"]?["city"] == "Lyon" && ana["data"]?["team"] == "blue")
            }
            // The work day started offline on one is on two, through the Documents API alone.
            let day = try client("two", ["work", "status", "--user", "ana", "--json"])
            #expect(day.stdout.contains(#""status" : "working""#), "\(day.stdout) \(day.stderr)")
            #expect(server.stop() == 0)
        }

        /// `suite docs watch` on a replica follows the server's feed: a write through another client shows within
        /// moments, not at the next 30 s sync.
        @Test func docsWatchOnAReplicaShowsOtherClientsWritesPromptly() throws {
            let server = try Server()
            let token = try server.token("ana")
            server.start()
            let remote = ["--remote", server.url, "--token", token]
            func directory(_ name: String) -> [String] {
                ["--data-dir", server.suite.directory.appendingPathComponent(name).path]
            }
            #expect(
                try server.suite.run(directory("one") + remote + ["docs", "set", "users/ana", #"{"n":1}"#]).status == 0)
            let watch = try server.suite.start(
                directory("two") + remote + ["docs", "watch", "users/ana", "--count", "2"])
            let first = watch.readLine() ?? ""
            #expect((try? JSONValue(parsing: first))?["data"]?["n"] == 1, "\(first)")
            let start = Date()
            #expect(
                try server.suite.run(directory("one") + remote + ["docs", "set", "users/ana", #"{"n":2}"#]).status == 0)
            let second = watch.readLine(timeout: 15) ?? ""
            #expect((try? JSONValue(parsing: second))?["data"]?["n"] == 2, "\(second)")
            #expect(Date().timeIntervalSince(start) < 10)
            #expect(watch.wait() == 0)
            #expect(server.stop() == 0)
        }

        /// `suite sync now` killed with SIGKILL at random moments of its push, again and again: once a sync finally
        /// completes, every mutation is applied exactly once.
        @Test func killedPushesLoseNothingAndApplyNothingTwice() throws {
            let server = try Server()
            let token = try server.token("ana")
            server.start()
            let directory = server.suite.directory.appendingPathComponent("client").path
            let offline = ["--data-dir", directory, "--remote", "http://127.0.0.1:1", "--token", token]
            #expect(try server.suite.run(offline + ["docs", "set", "users/ana", #"{"n":0}"#]).status == 0)
            let count = 40
            for _ in 0..<count {
                #expect(
                    try server.suite.run(offline + ["docs", "update", "users/ana", "--increment", "n=1"]).status == 0)
            }
            let online = ["--data-dir", directory, "--remote", server.url, "--token", token]
            var random = SplitMix64(seed: 11)
            for _ in 0..<6 {
                let process = try server.suite.start(online + ["sync", "now"])
                usleep(UInt32(random.next() % 250_000))
                process.send(SIGKILL)
                process.wait()
            }
            let final = try server.suite.run(online + ["sync", "now", "--json"])
            #expect(final.status == 0, "\(final.stderr)")
            #expect(try JSONValue(parsing: final.stdout)["pending"] == 0)
            let admin = try server.token("root", admin: true)
            let check = ["--data-dir", server.suite.directory.appendingPathComponent("check").path]
            let read = try server.suite.run(
                check + ["--remote", server.url, "--token", admin, "docs", "get", "users/ana", "--json"])
            #expect((try? JSONValue(parsing: read.stdout))?["data"]?["n"] == .int(Int64(count)), "\(read.stdout)")
            #expect(server.stop() == 0)
        }

        @Test(arguments: TransportKind.allCases) func theRulesApplyToPushesAndTheFeed(_ kind: TransportKind)
            async throws
        {
            let server = try Server()
            let ana = try server.token("ana")
            let root = try server.token("root", admin: true)
            server.start()
            let bus = EventBus()
            let conflicts = RecordedPaths()
            let subscription = bus.subscribe(to: SyncConflictEvent.self) { conflicts.add($0.payload.paths) }
            let admin = try await Self.replica(kind, server, "root", token: root)
            try await admin.write([.object(["op": "set", "path": "users/bob", "data": ["secret": 1]])])
            try await admin.sync()
            let mine = try await Self.replica(kind, server, "ana", token: ana, bus: bus)
            try await mine.write([.object(["op": "set", "path": "users/bob/notes/x", "data": ["y": 1]])])
            try await mine.write([.object(["op": "set", "path": "users/ana", "data": ["ok": true]])])
            try await mine.sync()
            // The forbidden write was rejected and undone locally; the allowed one went through; bob's stays unseen.
            #expect(conflicts.all == [["users/bob/notes/x"]])
            #expect(!(try await mine.store.document("users/bob/notes/x").getDocument().exists))
            #expect(!(try await mine.store.document("users/bob").getDocument().exists))
            #expect(try await mine.store.document("users/ana").getDocument().data?["ok"] == true)
            try await admin.sync()
            #expect(try await admin.store.document("users/ana").getDocument().data?["ok"] == true)
            #expect(server.stop() == 0)
            subscription.cancel()
        }

        @Test(arguments: TransportKind.allCases) func aReplicaBehindThePrunedLogResyncsWithinItsRules(
            _ kind: TransportKind
        ) async throws {
            let server = try Server()
            try Data("documents: {options: {change-log-days: 0, change-log-minimum: 1}}\n".utf8).write(
                to: server.suite.directory.appendingPathComponent("suite.yaml"))
            let ana = try server.token("ana")
            let root = try server.token("root", admin: true)
            server.start()
            let admin = try await Self.replica(kind, server, "root", token: root)
            try await admin.write([.object(["op": "set", "path": "users/bob", "data": ["secret": 1]])])
            try await admin.sync()
            var checkpoint: Int64 = 0
            do {
                let mine = try await Self.replica(kind, server, "ana", token: ana)
                try await mine.write([
                    .object(["op": "set", "path": "users/ana", "data": ["v": 1]]),
                    .object(["op": "set", "path": "users/ana/notes/a", "data": ["n": 1]]),
                ])
                try await mine.sync()
                checkpoint = mine.status.checkpoint
                await mine.store.close()
            }
            // Another device of ana's moves on; the server's shutdown prunes the log past the first replica.
            let other = try await Self.replica(kind, server, "ana2", token: ana)
            try await other.sync()
            try await other.write([
                .object(["op": "delete", "path": "users/ana/notes/a"]),
                .object(["op": "set", "path": "users/ana/notes/b", "data": ["n": 2]]),
                .object(["op": "update", "path": "users/ana", "transforms": ["v": ["increment": 10]]]),
            ])
            try await other.sync()
            await other.store.close()
            #expect(server.stop() == 0)
            // An import large enough to be indexed at once lets the log be pruned when the command ends.
            let lines = (0..<9_000).map { "{\"id\":\"b\($0)\",\"data\":{\"n\":\($0)}}" }.joined(separator: "\n")
            let bulk = server.suite.directory.appendingPathComponent("bulk.jsonl")
            try Data(lines.utf8).write(to: bulk)
            #expect(try server.suite.run(["docs", "import", "bulk", bulk.path, "--chunk-size", "9000"]).status == 0)
            let stats = try server.suite.run(["docs", "stats"]).stdout
            #expect(stats.contains("(changes up to it pruned)"), "\(stats)")
            server.start()
            let transport = try HTTPSyncTransport(baseURL: server.url, token: ana, http: kind.make())
            await #expect(throws: SyncError.self) {
                _ = try await transport.changes(since: checkpoint, wait: .zero, limit: 10)
            }

            let bus = EventBus()
            let resyncs = RecordedPaths()
            let subscription = bus.subscribe(named: "sync.resync", as: SyncResyncEvent.Payload.self) { payload, _ in
                resyncs.add(["\(payload.documents)"])
            }
            let mine = try await Self.replica(kind, server, "ana", token: ana, bus: bus)
            try await mine.write([.object(["op": "set", "path": "users/ana/notes/c", "data": ["n": 3]])])
            try await mine.pull()
            func data(_ path: String) async throws -> DocumentData? {
                try await mine.store.document(path).getDocument().data
            }
            #expect(try await data("users/ana/notes/a") == nil, "deleted by the other device while the log was pruned")
            #expect(try await data("users/ana/notes/b")?["n"] == .int(2))
            #expect(try await data("users/ana")?["v"] == .int(11))
            #expect(try await data("users/ana/notes/c")?["n"] == .int(3), "the pending write stays")
            #expect(try await data("users/bob") == nil, "outside ana's rules")
            #expect(resyncs.all == [["2"]], "users/ana and its note b: all ana may read")
            try await mine.sync()
            #expect(try await admin.store.document("users/ana/notes/c").getDocument().exists == false)
            try await admin.sync()
            #expect(try await admin.store.document("users/ana/notes/c").getDocument().data?["n"] == .int(3))
            // Wrong input on the route.
            for query in ["limit=0", "limit=x", "after=users%2F%2Fx"] {
                await #expect(throws: SyncError.self, "\(query)") {
                    _ = try await transport.snapshot(
                        after: query == "after=users%2F%2Fx" ? "users//x" : nil,
                        limit: query == "limit=0" ? 0 : query == "limit=x" ? -1 : 5)
                }
            }
            subscription.cancel()
            await mine.store.close()
            #expect(server.stop() == 0)
        }
    }
}

/// Paths collected from bus handlers.
final class RecordedPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [[String]] = []
    func add(_ paths: [String]) { lock.withLock { items.append(paths) } }
    var all: [[String]] { lock.withLock { items } }
}
