import Foundation
import PostgresTestSupport
import SuiteCore
import SuiteTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// `suite docs index verify|rebuild`, `suite docs stats` and the sync feed's 410 on the `postgres` engine: the real
    /// binary loading the PostgresDocuments plugin by name, on a real server.
    @Suite("suite docs on PostgreSQL: index checks and change-log retention (real binary)")
    struct PostgresDocsCommandTests {
        /// A directory whose suite.yaml selects the `postgres` engine in a new schema, with `extra` options; and the
        /// schema's name.
        static func runner(_ extra: String = "") async throws -> (SuiteRunner, String) {
            let server = try await PostgresServer.shared()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-pg-docs"))
            let schema = "e2e_" + UUID().uuidString.prefix(8).lowercased()
            try """
            plugins: [PostgresDocuments]
            documents:
              engine: postgres
              options: {url: "\(server.url)", schema: \(schema), pool-size: 4, connect-timeout: 60\(extra)}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            return (suite, schema)
        }

        func json(_ suite: SuiteRunner, _ arguments: [String], status: Int32 = 0) throws -> JSONValue {
            let result = try suite.run(arguments + ["--json"])
            #expect(result.status == status, "suite \(arguments.joined(separator: " ")): \(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }

        @Test("verify finds an index row deleted with SQL and exits 1; rebuild repairs it")
        func indexVerifyAndRebuild() async throws {
            let (suite, schema) = try await Self.runner()
            for i in 0..<12 {
                let set = try suite.run(["docs", "set", "users/u\(i)", #"{"city":"c\#(i % 3)","points":\#(i)}"#])
                #expect(set.status == 0, "\(set.stderr)")
            }
            #expect(try suite.run(["docs", "index", "add", "users", "city:asc", "points:desc"]).status == 0)
            let healthy = try json(suite, ["docs", "index", "verify"])
            #expect(healthy["consistent"] == true)
            // Per document: the automatic city and points entries, and the composite one.
            #expect(healthy["entries"] == 36)
            #expect(try json(suite, ["docs", "index", "verify", "users", "city:asc", "points:desc"])["entries"] == 12)

            _ = try await PostgresServer.shared().psql(
                """
                DELETE FROM \(schema).entries WHERE ctid = (
                    SELECT ctid FROM \(schema).entries WHERE path = 'users/u4' AND index_name LIKE '%composite%')
                """)
            let damaged = try json(suite, ["docs", "index", "verify"], status: 1)
            #expect(damaged["consistent"] == false)
            #expect(damaged["differenceCount"] == 1)
            #expect(damaged["differences"]?.arrayValue?.first?["kind"] == "missing")
            #expect(damaged["differences"]?.arrayValue?.first?["path"] == "users/u4")
            let text = try suite.run(["docs", "index", "verify"])
            #expect(text.status == 1)
            #expect(text.stdout.contains("index inconsistent: 1 difference(s)"), "\(text.stdout)")
            // The query that needs the index misses the document until the rebuild.
            let query = ["docs", "query", "users", "--where", #"city == "c1""#, "--order-by", "points:desc"]
            #expect(try json(suite, query).arrayValue?.count == 3)

            #expect(try json(suite, ["docs", "index", "rebuild", "users", "city:asc", "points:desc"])["entries"] == 12)
            #expect(try json(suite, ["docs", "index", "verify"])["consistent"] == true)
            #expect(try json(suite, query).arrayValue?.count == 4)
            #expect(try json(suite, ["docs", "index", "rebuild"])["entries"] == 36)
            #expect(try json(suite, ["docs", "index", "rebuild", "--name", "users|points"])["entries"] == 12)
            let typo = try suite.run(["docs", "index", "verify", "--name", "users|pionts"])
            #expect(typo.status == 1)
            #expect(typo.stderr.contains("no index 'users|pionts'"), "\(typo.stderr)")
        }

        @Test("the change log keeps change-log-minimum records; suite serve answers 410 below the horizon")
        func retentionAndGone() async throws {
            let (suite, _) = try await Self.runner(", change-log-days: 0, change-log-minimum: 2")
            let added = try json(suite, ["users", "add", "ana"])
            let token = added["token"]?.stringValue ?? ""
            // Each command commits, then prunes as it shuts down.
            for i in 0..<6 {
                let set = try suite.run(["docs", "set", "users/ana/notes/n\(i)", #"{"n":\#(i)}"#])
                #expect(set.status == 0, "\(set.stderr)")
            }
            let stats = try json(suite, ["docs", "stats"])
            let log = try #require(stats["changeLog"], "\(stats)")
            let last = try #require(log["lastSequence"]?.intValue)
            let horizon = try #require(log["horizon"]?.intValue)
            #expect(log["records"] == 2)
            #expect(horizon == last - 2 && horizon > 0, "\(log)")

            let server = try suite.start(["serve", "--port", "0", "--json"])
            defer {
                server.send(SIGTERM)
                _ = server.wait()
            }
            let port = Int((try? JSONValue(parsing: server.readLine() ?? ""))?["port"]?.intValue ?? 0)
            let (gone, answer) = try await PostgresServeTests.call(
                port, "GET", "/v1/sync/changes?since=0", token: token)
            #expect(gone == 410, "\(answer)")
            let (kept, changes) = try await PostgresServeTests.call(
                port, "GET", "/v1/sync/changes?since=\(horizon)", token: token)
            #expect(kept == 200, "\(changes)")
            #expect(changes["changes"]?.arrayValue?.count == 2, "\(changes)")
        }
    }
}
