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
    /// `server.quotas` through the real `suite serve`: 429 with Retry-After, counted in `/metrics` and `/v1/quotas`;
    /// two servers on one PostgreSQL never admit more than the limit between them.
    @Suite("suite serve quotas (real binary)")
    struct QuotaServeTests {
        typealias Server = ServeCommandTests.Server

        /// The UTC minute of now, to tell whether a window boundary passed during a test.
        static func minute() -> Int64 { Int64(Date().timeIntervalSince1970) / 60 }

        @Test func oneUserOverTheMinuteLimitGets429WithRetryAfterWhileAnotherIsServed() throws {
            let server = try Server(
                config: """
                    server:
                      quotas: {per-minute: {reads: 5}, admins: limited}
                    """)
            defer { _ = server.stop() }
            let start = Self.minute()
            var admitted = 0
            var refusal: (status: Int, headers: [String: String], json: JSONValue)?
            for _ in 0..<20 {
                let answer = try server.request(
                    "GET", "/v1/docs/users/ana", headers: ["Authorization: Bearer \(server.ana)"])
                if answer.status == 429 {
                    refusal = answer
                    break
                }
                #expect(answer.status == 404)  // a read of a missing document: one read, as Firestore bills it
                admitted += 1
            }
            if Self.minute() == start { #expect(admitted == 5) }
            let answer = try #require(refusal)
            let retryAfter = Int(answer.headers["retry-after"] ?? "") ?? 0
            #expect((1...60).contains(retryAfter), "\(answer.headers)")
            #expect(answer.json["error"]?["code"] == "tooManyRequests")
            #expect(answer.json["error"]?["message"]?.stringValue?.contains("5 reads allowed per minute") == true)
            #expect(answer.json["error"]?["hint"]?.stringValue?.contains("Retry-After") == true)

            // Another user (an admin, limited here) is still served; writes are not limited.
            let other = try server.call("GET", "/v1/docs/users/root", token: server.root)
            #expect(other.status == 404)
            let write = try server.call("PUT", "/v1/docs/users/ana", token: server.ana, body: #"{"data":{"n":1}}"#)
            #expect(write.status == 200)

            let metrics = try server.request("GET", "/metrics")
            #expect(
                metrics.json.stringValue?.contains(#"suite_quota_rejections_total{kind="reads",window="minute"} 1"#)
                    == true, "\(metrics.json)")
        }

        @Test func dailyQuotaAndDeletesCountedApartShownInTheConsoleRoute() throws {
            let server = try Server(
                config: """
                    server:
                      quotas:
                        per-minute: {reads: 1000}
                        per-day: {writes: 3, deletes: 2}
                    """)
            defer { _ = server.stop() }
            for n in 0..<3 {
                let put = try server.call(
                    "PUT", "/v1/docs/users/ana/items/i\(n)", token: server.ana, body: #"{"data":{"n":1}}"#)
                #expect(put.status == 200)
            }
            let fourth = try server.request(
                "PUT", "/v1/docs/users/ana/items/i3", headers: ["Authorization: Bearer \(server.ana)"],
                body: #"{"data":{"n":1}}"#)
            #expect(fourth.status == 429)
            #expect((1...86_400).contains(Int(fourth.headers["retry-after"] ?? "") ?? 0), "\(fourth.headers)")
            #expect(fourth.json["error"]?["message"]?.stringValue?.contains("3 writes allowed per day") == true)

            // Deletes have their own allowance: two pass, the third (in a commit) is refused, nothing deleted.
            #expect(try server.call("DELETE", "/v1/docs/users/ana/items/i0", token: server.ana).status == 200)
            #expect(try server.call("DELETE", "/v1/docs/users/ana/items/i1", token: server.ana).status == 200)
            let third = try server.call(
                "POST", "/v1/commit", token: server.ana,
                body: #"{"writes":[{"op":"delete","path":"users/ana/items/i2"}]}"#)
            #expect(third.status == 429)
            #expect(try server.call("GET", "/v1/docs/users/ana/items/i2", token: server.ana).status == 200)
            // An admin is exempt by default.
            #expect(
                try server.call("PUT", "/v1/docs/users/root/items/x", token: server.root, body: #"{"data":{"n":1}}"#)
                    .status
                    == 200)

            // The console's route: ana's use of the day against the limits.
            let usage = try server.call("GET", "/v1/quotas", token: server.root)
            #expect(usage.status == 200)
            let ana = usage.json["users"]?.arrayValue?.first { $0["uid"] == "ana" }
            #expect(ana?["day"]?["writes"]?["used"] == 3 && ana?["day"]?["writes"]?["limit"] == 3, "\(usage.json)")
            #expect(ana?["day"]?["deletes"]?["used"] == 2, "\(usage.json)")
            #expect(usage.json["admins"] == "exempt")
            // A user sees only themselves.
            let own = try server.call("GET", "/v1/quotas", token: server.ana)
            #expect(own.json["users"]?.arrayValue?.map { $0["uid"] } == ["ana"], "\(own.json)")

            let metrics = try server.request("GET", "/metrics").json.stringValue ?? ""
            #expect(metrics.contains(#"suite_quota_rejections_total{kind="writes",window="day"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"suite_quota_rejections_total{kind="deletes",window="day"} 1"#), "\(metrics)")
        }

        @Test func misspelledKeysAndNegativeNumbersAreClearErrors() throws {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-quotas"))
            let cases: [(String, String)] = [
                ("server: {quotas: {per-minit: {reads: 5}}}", "did you mean 'per-minute'"),
                ("server: {quotas: {per-day: {read: 5}}}", "did you mean 'reads'"),
                ("server: {quotas: {per-minute: {writes: -5}}}", "server.quotas.per-minute.writes"),
                ("server: {quotas: {per-minute: {writes: 1.5}}}", "must be a whole number of documents"),
                ("server: {quotas: {admins: exmept}}", "did you mean 'exempt'"),
                ("server: {quotas: [1]}", "must be a map"),
            ]
            for (config, message) in cases {
                try config.write(
                    to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
                let result = try suite.run(["docs", "get", "users/ana"])
                #expect(result.status != 0, "\(config)")
                #expect(result.stderr.contains(message), "\(config): \(result.stderr)")
            }
        }

        @Test func twoServersOnOnePostgreSQLAdmitAtMostTheLimitBetweenThem() async throws {
            let postgres = try await PostgresServer.shared()
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-pg-quotas"))
            let schema = "quota_" + UUID().uuidString.prefix(8).lowercased()
            let limit = 40
            try """
            plugins: [PostgresDocuments]
            documents: {engine: postgres, options: {url: "\(postgres.url)", schema: \(schema), pool-size: 8}}
            server:
              quotas: {per-day: {reads: \(limit)}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let ana = try Server.token(suite, ["ana"])
            let bob = try Server.token(suite, ["bob"])
            var processes: [RunningSuite] = []
            var ports: [Int] = []
            defer {
                for process in processes { process.send(SIGTERM) }
                for process in processes { _ = process.wait() }
            }
            for _ in 0..<2 {
                let process = try suite.start(["serve", "--port", "0", "--json"])
                processes.append(process)
                ports.append(Int((try? JSONValue(parsing: process.readLine() ?? ""))?["port"]?.intValue ?? 0))
            }
            #expect(ports.allSatisfy { $0 > 0 })

            // Three times the limit at once, half through each server.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<(3 * limit) {
                    let port = ports[i % 2]
                    group.addTask {
                        try await PostgresServeTests.call(port, "GET", "/v1/docs/users/ana", token: ana).0
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(Set(statuses).isSubset(of: [404, 429]), "\(statuses)")
            var admitted = statuses.filter { $0 == 404 }.count
            #expect(admitted <= limit)
            // Each server then admits what it still holds, and refuses once the ledger and its block are empty: the
            // two together admitted exactly the limit.
            for port in ports {
                while admitted <= limit {
                    let (status, _) = try await PostgresServeTests.call(port, "GET", "/v1/docs/users/ana", token: ana)
                    if status == 429 { break }
                    #expect(status == 404)
                    admitted += 1
                }
            }
            #expect(admitted == limit)
            // Another user has a limit of their own.
            let (other, _) = try await PostgresServeTests.call(ports[1], "GET", "/v1/docs/users/bob", token: bob)
            #expect(other == 404)
        }
    }
}
