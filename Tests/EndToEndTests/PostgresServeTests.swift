import Documents
import Foundation
import PostgresTestSupport
import SuiteCore
import SuiteTestSupport
import Sync
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// Two real `suite serve` processes on one PostgreSQL database, through the PostgresDocuments plugin loaded by
    /// name from the configuration.
    @Suite("two suite serve on one PostgreSQL (real binary, real plugin, real server)")
    struct PostgresServeTests {
        /// A directory whose suite.yaml selects the `postgres` engine in a schema of its own.
        static func runner(schema: String = "e2e_" + UUID().uuidString.prefix(8).lowercased()) async throws
            -> SuiteRunner
        {
            let server = try await PostgresServer.shared()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-pg"))
            try """
            plugins: [PostgresDocuments]
            documents: {engine: postgres, options: {url: "\(server.url)", schema: \(schema), pool-size: 8, connect-timeout: 60}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            return suite
        }

        /// `suite serve` processes sharing one directory (so one accounts file) and one schema.
        struct Servers {
            var processes: [RunningSuite]
            var ports: [Int]
            /// The PostgreSQL schema they share.
            var schema: String

            func stop() {
                for process in processes { process.send(SIGTERM) }
                for process in processes { _ = process.wait() }
            }
        }

        /// A user `ana` and two servers on free ports (each port from its `--json` start line).
        static func twoServers() async throws -> (SuiteRunner, String, Servers) {
            let schema = "e2e_" + UUID().uuidString.prefix(8).lowercased()
            let suite = try await runner(schema: schema)
            let added = try suite.run(["users", "add", "ana", "--json"])
            let token = (try? JSONValue(parsing: added.stdout))?["token"]?.stringValue ?? ""
            #expect(added.status == 0 && !token.isEmpty, "\(added.stderr)")
            var servers = Servers(processes: [], ports: [], schema: schema)
            for _ in 0..<2 {
                let process = try suite.start(["serve", "--port", "0", "--json"])
                servers.processes.append(process)
                servers.ports.append(Int((try? JSONValue(parsing: process.readLine() ?? ""))?["port"]?.intValue ?? 0))
            }
            return (suite, token, servers)
        }

        /// Returns once a server on `schema` listens for the NOTIFY of commits (a server starts listening when a long
        /// poll of its sync feed first waits), as PostgreSQL's `pg_stat_activity` shows.
        static func waitUntilListening(_ schema: String) async throws {
            let server = try await PostgresServer.shared()
            let listen = #"LISTEN "suite_changes_\#(schema)";"#
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let count = try await server.psql("SELECT count(*) FROM pg_stat_activity WHERE query = '\(listen)'")
                if (Int(count.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0 { return }
                try await Task.sleep(for: .milliseconds(10))
            }
            Issue.record("no server on schema \(schema) listens for NOTIFY")
        }

        static func call(_ port: Int, _ method: String, _ path: String, token: String, body: JSONValue? = nil)
            async throws -> (Int, JSONValue)
        {
            guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { return (0, .null) }
            var request = URLRequest(url: url)
            request.httpMethod = method
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            if let body {
                request.httpBody = Data(body.jsonString.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            return (status, (try? JSONValue(parsing: data)) ?? .null)
        }

        @Test func transactionalIncrementsThroughTwoServersAddUpAndReplicasConverge() async throws {
            let (suite, token, servers) = try await Self.twoServers()
            defer { servers.stop() }
            let (port1, port2) = (servers.ports[0], servers.ports[1])
            #expect(port1 > 0 && port2 > 0 && port1 != port2)
            let (created, _) = try await Self.call(
                port1, "PUT", "/v1/docs/users/ana", token: token, body: ["data": ["n": 0]])
            #expect(created == 200)

            // 100 read-modify-write transactions, half through each server: a version precondition, retried on 409.
            let conflicts = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<100 {
                    let port = i.isMultiple(of: 2) ? port1 : port2
                    group.addTask {
                        var retries = 0
                        while retries < 500 {
                            let (status, document) = try await Self.call(
                                port, "GET", "/v1/docs/users/ana", token: token)
                            guard status == 200, let version = document["version"]?.intValue,
                                let n = document["data"]?["n"]?.intValue
                            else { throw RunnerFailure("GET answered \(status): \(document)") }
                            let (committed, answer) = try await Self.call(
                                port, "POST", "/v1/commit", token: token,
                                body: [
                                    "writes": [
                                        [
                                            "op": "set", "path": "users/ana", "data": ["n": .int(n + 1)],
                                            "precondition": ["version": .int(version)],
                                        ]
                                    ]
                                ])
                            if committed == 200 { return retries }
                            guard committed == 409 else {
                                throw RunnerFailure("commit answered \(committed): \(answer)")
                            }
                            retries += 1
                        }
                        throw RunnerFailure("500 conflicts in a row")
                    }
                }
                var total = 0
                for try await retries in group { total += retries }
                return total
            }
            let (_, final) = try await Self.call(port2, "GET", "/v1/docs/users/ana", token: token)
            #expect(final["data"]?["n"] == 100, "after \(conflicts) retried conflicts: \(final)")

            // Two offline replicas, each syncing through its own server, converge (transforms stay transforms).
            func replica(_ name: String, _ port: Int) async throws -> SyncClient {
                let path = suite.directory.appendingPathComponent("\(name).sqlite").path
                return try await SyncClient(
                    store: DocumentStore(engine: try SQLiteDocumentEngine(path: path)),
                    transport: try HTTPSyncTransport(baseURL: "http://127.0.0.1:\(port)", token: token))
            }
            let a = try await replica("a", port1)
            let b = try await replica("b", port2)
            try await a.sync()
            try await b.sync()
            let increment: JSONValue = [
                "op": "update", "path": "users/ana", "transforms": ["points": ["increment": 1]],
            ]
            for _ in 0..<5 {
                try await a.write([increment])
                try await b.write([increment])
            }
            try await a.sync()
            try await b.sync()
            try await a.sync()
            let expected = try await a.store.document("users/ana").getDocument().data
            #expect(expected?["points"] == 10 && expected?["n"] == 100)
            #expect(try await b.store.document("users/ana").getDocument().data == expected)
            let (_, served) = try await Self.call(port1, "GET", "/v1/docs/users/ana", token: token)
            #expect(served["data"]?["points"] == 10)
        }

        @Test func theSyncFeedOfOneServerWakesOnACommitThroughTheOther() async throws {
            let (_, token, servers) = try await Self.twoServers()
            defer { servers.stop() }
            let (port1, port2) = (servers.ports[0], servers.ports[1])
            let (_, feed) = try await Self.call(port2, "GET", "/v1/sync/changes?since=0", token: token)
            let since = feed["sequence"]?.intValue ?? 0
            // A long poll on the second server; a write through the first ends it with that change.
            async let waited = Self.call(port2, "GET", "/v1/sync/changes?since=\(since)&wait=20", token: token)
            // The write comes once the poll waits: it listens from then on, after its first read found nothing.
            try await Self.waitUntilListening(servers.schema)
            let started = ContinuousClock.now
            let (status, _) = try await Self.call(
                port1, "PUT", "/v1/docs/users/ana", token: token, body: ["data": ["hello": "there"]])
            #expect(status == 200)
            let (answered, changes) = try await waited
            let elapsed = ContinuousClock.now - started
            #expect(answered == 200)
            #expect(changes["changes"]?.arrayValue?.first?["path"] == "users/ana", "\(changes)")
            // Below the poll's 20 s wait (a timed-out poll would also bring no change); not tighter, as a full parallel
            // test run can keep a task from a thread for seconds.
            #expect(elapsed < .seconds(18), "the long poll ended \(elapsed) after the write")
        }

        @Test func aWrongURLFailsAtStartNamingTheServerButNotThePassword() async throws {
            let server = try await PostgresServer.shared()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-pg-bad"))
            let badPassword = server.url.replacingOccurrences(of: PostgresServer.password, with: "wrong-secret")
            try """
            plugins: [PostgresDocuments]
            documents: {engine: postgres, options: {url: "\(badPassword)"}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let refused = try suite.run(["docs", "get", "users/ana"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("refused the login of user 'suite'"), "\(refused.stderr)")
            #expect(refused.stderr.contains("127.0.0.1:\(server.port)/postgres"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("wrong-secret"))

            let closed = try PostgresServer.freePort()
            try """
            plugins: [PostgresDocuments]
            documents: {engine: postgres, options: {url: "postgres://suite:s3cret@127.0.0.1:\(closed)/app"}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let unreachable = try suite.run(["docs", "get", "users/ana"])
            #expect(unreachable.status != 0)
            #expect(
                unreachable.stderr.contains("cannot reach PostgreSQL at 127.0.0.1:\(closed)/app"),
                "\(unreachable.stderr)")
            #expect(!unreachable.stderr.contains("s3cret"))

            try """
            plugins: [PostgresDocuments]
            documents: {engine: postgres, options: {url: "\(server.url)", pool-sise: 3}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let misspelled = try suite.run(["docs", "get", "users/ana"])
            #expect(misspelled.status != 0)
            #expect(misspelled.stderr.contains("unknown option 'pool-sise'"), "\(misspelled.stderr)")
            #expect(misspelled.stderr.contains("did you mean 'pool-size'"), "\(misspelled.stderr)")
        }
    }
}

/// A failure inside a test's own HTTP steps.
struct RunnerFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
