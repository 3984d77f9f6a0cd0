import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RealBinary {
    /// `suite analytics` through the real binary: the SQLite engine by default, the http engine against
    /// `analytics-receiver` (a real server on loopback, in its own process), and kill -9 of the sending process.
    @Suite("suite analytics (real binary)")
    struct AnalyticsCommandTests {
        func runner(configuration: String? = nil) throws -> SuiteRunner {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-analytics"))
            if let configuration {
                try configuration.write(
                    to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            }
            return suite
        }

        func json(_ result: CommandResult) throws -> JSONValue {
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }

        @Test("log, then report by event, day and parameter, tail and queue, across processes")
        func logAndReport() throws {
            let suite = try runner()
            for reason in ["wrong_password", "no_network", "wrong_password"] {
                let logged = try suite.run(["analytics", "log", "login_failed", "reason=\(reason)"])
                #expect(logged.status == 0, "\(logged.stderr)")
                #expect(logged.stdout.contains("logged login_failed"))
            }
            #expect(try suite.run(["analytics", "log", "message_deleted", "index=3", "read=true"]).status == 0)

            let byEvent = try json(suite.run(["analytics", "report", "--json"]))
            #expect(byEvent.arrayValue?.map { $0["key"]?.stringValue ?? "" } == ["login_failed", "message_deleted"])
            #expect(byEvent.arrayValue?.first?["count"] == 3)
            let byParameter = try json(
                suite.run(["analytics", "report", "--by", "param", "--param", "reason", "--json"]))
            #expect(
                byParameter.arrayValue?.map { "\($0["key"]?.stringValue ?? "")=\($0["count"]?.intValue ?? 0)" } == [
                    "login_failed.reason=wrong_password=2", "login_failed.reason=no_network=1",
                ])
            let byDay = try json(suite.run(["analytics", "report", "--by", "day", "--since", "1d", "--json"]))
            #expect(byDay.arrayValue?.count == 1 && byDay.arrayValue?.first?["count"] == 4)
            let chart = try suite.run(["analytics", "report"])
            #expect(chart.stdout.contains("login_failed") && chart.stdout.contains("█"))

            let tail = try suite.run(["analytics", "tail", "-n", "2", "--json"])
            let lines = tail.stdout.split(separator: "\n").map { try? JSONValue(parsing: String($0)) }
            #expect(lines.count == 2)
            #expect(lines.last??["name"] == "message_deleted")
            #expect(lines.last??["parameters"]?["index"] == "3")

            let queue = try json(suite.run(["analytics", "queue", "--json"]))
            #expect(queue["pending"] == 0 && queue["failed"] == 0)
        }

        @Test("tail --follow, started before anything exists, prints events as other processes log them")
        func tailFollow() throws {
            let suite = try runner()
            let tail = try suite.start(["analytics", "tail", "--follow"])
            defer {
                tail.send(SIGKILL)
                tail.wait()
            }
            // No wait: `log` may create the events file while `tail` does, and either may be first (FirstOpenRaceTests);
            // an event logged before `tail` reads is among the last lines it prints, one after is followed.
            #expect(try suite.run(["analytics", "log", "hello", "a=1"]).status == 0)
            let line = tail.readLine(timeout: 20)
            #expect(line?.hasSuffix(" hello a=1") == true, "\(line ?? "nothing")")
        }

        @Test("wrong input: an invalid name, a parameter without =, a bad grouping or date, each with a hint")
        func wrongInput() throws {
            let suite = try runner()
            let cases: [([String], String)] = [
                (["analytics", "log", "1st-event"], "not valid"),
                (["analytics", "log", "ok_event", "reason"], "key=value"),
                (["analytics", "log", "ok_event", "a=1", "a=2"], "given twice"),
                (["analytics", "log", "ok_event", "v=\(String(repeating: "x", count: 101))"], "100"),
                (["analytics", "report", "--by", "dya"], "event, day or param"),
                (["analytics", "report", "--since", "yesterday"], "7d"),
                (["analytics", "tail", "--lines=-1"], "≥ 0"),
            ]
            for (arguments, expected) in cases {
                let result = try suite.run(arguments)
                #expect(result.status != 0 && result.exitedNormally, "\(arguments)")
                #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            }
            #expect(try suite.run(["analytics", "report", "--json"]).stdout == "[]\n")
        }

        @Test("a misspelled or out-of-range analytics setting fails every command with the key and a suggestion")
        func badConfiguration() throws {
            let cases: [(String, String)] = [
                ("analytics: {engins: [{engine: sqlite}]}", "did you mean 'engines'"),
                ("analytics: {engines: [{engine: sqlit}]}", "sqlite"),
                ("analytics: {engines: [{engine: http}]}", "needs a url"),
                ("analytics: {engines: [{engine: http, options: {url: 'collect.example.com'}}]}", "http(s)"),
                ("analytics: {engines: [{engine: http, options: {url: 'http://x/b', batch-size: 0}}]}", "batch-size"),
                ("analytics: {engines: []}", "non-empty"),
                ("analytics: {privacy: {email: hsah}}", "must be keep, hash or drop"),
                ("analytics: {sampling: {rate: 2}}", "at most 1"),
                ("analytics: {prices: {reads: 1}}", "did you mean 'read'"),
            ]
            for (configuration, expected) in cases {
                let suite = try runner(configuration: configuration)
                let result = try suite.run(["analytics", "log", "ok_event"])
                #expect(result.status != 0, "\(configuration)")
                #expect(result.stderr.contains(expected), "\(configuration): \(result.stderr)")
            }
        }

        @Test("document reads, writes and deletes are recorded from the bus and priced per collection")
        func documentCosts() throws {
            let suite = try runner(
                configuration: "analytics: {prices: {read: 100000, write: 200000, delete: 300000}}\n")
            #expect(try suite.run(["docs", "set", "users/u1", #"{"name":"Ada"}"#]).status == 0)
            #expect(try suite.run(["docs", "set", "users/u2", #"{"name":"Bob"}"#]).status == 0)
            #expect(try suite.run(["docs", "get", "users/u1"]).status == 0)
            #expect(try suite.run(["docs", "delete", "users/u2"]).status == 0)
            #expect(try suite.run(["docs", "set", "orders/o1", #"{"total":5}"#]).status == 0)
            let cost = try json(suite.run(["analytics", "cost", "--json"]))
            let rows = Dictionary(
                uniqueKeysWithValues: (cost["collections"]?.arrayValue ?? []).map {
                    ($0["collection"]?.stringValue ?? "", $0)
                })
            #expect(rows["users"]?["reads"] == 1.0)
            #expect(rows["users"]?["writes"] == 2.0)
            #expect(rows["users"]?["deletes"] == 1.0)
            #expect(rows["orders"]?["writes"] == 1.0)
            #expect(cost["total"] == 10.0)  // 1 read × 1 + 3 writes × 2 + 1 delete × 3, prices per 100,000
            let table = try suite.run(["analytics", "cost"])
            #expect(table.stdout.contains("users") && table.stdout.contains("total"))
        }

        @Test("record: [] records no bus event")
        func recordingOff() throws {
            let suite = try runner(configuration: "analytics: {record: []}\n")
            #expect(try suite.run(["docs", "set", "users/u1", #"{"name":"Ada"}"#]).status == 0)
            #expect(try suite.run(["analytics", "report", "--json"]).stdout == "[]\n")
        }

        @Test(
            "http engine: a failing receiver keeps events queued; kill -9 mid-delivery loses none and sends none twice")
        func killDuringDelivery() async throws {
            let receiver = try await AnalyticsReceiverProcess.start()
            defer { receiver.stop() }
            let suite = try runner(
                configuration: """
                    analytics:
                      engines: [{engine: http, options: {url: "\(receiver.batchURL)", timeout: 60}}]
                      record: []
                    """)
            try await receiver.control(mode: "500")
            for index in 0..<10 {
                let logged = try suite.run(["analytics", "log", "tick", "i=\(index)"])
                #expect(logged.status == 0, "\(logged.stderr)")
            }
            var queue = try json(suite.run(["analytics", "queue", "--json"]))
            #expect(queue["pending"] == 10 && queue["retrying"] == 10, "\(queue)")
            #expect(try await receiver.stats().unique == 0)

            // The receiver now hangs: a `log` is killed after its event is on disk, while it waits on the delivery.
            try await receiver.control(mode: "hang")
            let before = try await receiver.stats().requests
            let hanging = try suite.start(["analytics", "log", "tick", "i=10"])
            #expect(hanging.readLine(timeout: 30)?.contains("logged tick") == true)
            for _ in 0..<500 where try await receiver.stats().requests == before {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await receiver.stats().requests > before)  // in flight when killed
            hanging.send(SIGKILL)
            hanging.wait()
            #expect(!hanging.exitedNormally)

            // Back to normal: the next flush takes over the dead process's lease at once and delivers its event.
            try await receiver.control(mode: "ok")
            let flushed = try suite.run(["analytics", "flush", "--json"])
            #expect(flushed.status == 0, "\(flushed.stderr)")
            let first = try await receiver.events().compactMap { ($0["parameters"] as? [String: String])?["i"] }
            #expect(first.contains("10"))
            // The others go once their backoff has passed (up to 4 s after three failed attempts).
            for _ in 0..<30 where try await receiver.stats().unique < 11 {
                try await Task.sleep(for: .milliseconds(500))
                #expect(try suite.run(["analytics", "flush"]).status == 0)
            }
            let stats = try await receiver.stats()
            #expect(stats.unique == 11 && stats.duplicates == 0)
            let received = try await receiver.events().compactMap { ($0["parameters"] as? [String: String])?["i"] }
            #expect(Set(received) == Set((0...10).map { "\($0)" }))
            queue = try json(suite.run(["analytics", "queue", "--json"]))
            #expect(queue["pending"] == 0 && queue["inFlight"] == 0 && queue["failed"] == 0)
        }

        @Test("a plugin engine (AnalyticsPrometheus) beside the sqlite engine, loaded by the real binary")
        func prometheusPluginEngine() throws {
            let suite = try runner()
            let prom = suite.directory.appendingPathComponent("suite.prom").path
            try """
            plugins: [AnalyticsPrometheus]
            plugin-path: [\(TestSupport.binDirectory.path)]
            analytics:
              engines: [{engine: sqlite}, {engine: prometheus, options: {path: "\(prom)", labels: [reason]}}]
              record: []
            """.write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            for reason in ["wrong_password", "no_network", "wrong_password"] {
                let logged = try suite.run(["analytics", "log", "login_failed", "reason=\(reason)"])
                #expect(logged.status == 0, "\(logged.stderr)")
            }
            let text = try String(contentsOfFile: prom, encoding: .utf8)
            #expect(text.contains("# TYPE suite_analytics_events_total counter"))
            #expect(text.contains(#"suite_analytics_events_total{event="login_failed",reason="wrong_password"} 2"#))
            #expect(text.contains(#"suite_analytics_events_total{event="login_failed",reason="no_network"} 1"#))
            // The sqlite engine got them too (a multiplex).
            let report = try json(suite.run(["analytics", "report", "--json"]))
            #expect(report.arrayValue?.first?["count"] == 3)

            // Wrong options and a misspelled engine name: errors that say why.
            try """
            plugins: [AnalyticsPrometheus]
            plugin-path: [\(TestSupport.binDirectory.path)]
            analytics: {engines: [{engine: prometheus, options: {pth: x}}]}
            """.write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let badOption = try suite.run(["analytics", "log", "x"])
            #expect(
                badOption.status != 0 && badOption.stderr.contains("unknown prometheus option 'pth'"),
                "\(badOption.stderr)"
            )
            try """
            plugins: [AnalyticsPrometheus]
            plugin-path: [\(TestSupport.binDirectory.path)]
            analytics: {engines: [{engine: prometeus, options: {path: x.prom}}]}
            """.write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let misspelled = try suite.run(["analytics", "log", "x"])
            #expect(
                misspelled.status != 0 && misspelled.stderr.contains("did you mean 'prometheus'"),
                "\(misspelled.stderr)")
        }
    }
}
