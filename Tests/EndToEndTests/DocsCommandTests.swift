import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

extension RealBinary {
    @Suite("suite docs (real binary)")
    struct DocsCommandTests {
        func runner() throws -> SuiteRunner {
            SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-docs"))
        }

        func json(_ suite: SuiteRunner, _ arguments: [String], input: String? = nil) throws -> JSONValue {
            let result = try suite.run(arguments + ["--json"], input: input)
            #expect(result.status == 0, "suite \(arguments.joined(separator: " ")): \(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }

        @Test("the loyalty flow: set, transactional batch with preconditions, increments, reads without re-reading")
        func loyaltyFlow() throws {
            let suite = try runner()
            let created = try json(suite, ["docs", "set", "users/u1", #"{"name":"Ana","points":25}"#])
            #expect(created["data"]?["points"] == 25)
            let version = try #require(created["version"]?.intValue)

            // Redeem: subtract 10 points and add a pointTransactions document, conditioned on the version read.
            let redeem = """
                [{"op":"update","path":"users/u1","transforms":{"points":{"increment":-10}},
                  "precondition":{"version":\(version)}},
                 {"op":"add","path":"pointTransactions","data":{"user":{"$ref":"users/u1"},"delta":-10}},
                 {"op":"set","path":"stats/daily","merge":true,"transforms":{"redemptions":{"increment":1}}}]
                """
            let results = try json(suite, ["docs", "batch", "-"], input: redeem)
            #expect(results.arrayValue?.count == 3)
            #expect(results.arrayValue?[0]["data"]?["points"] == 15)
            #expect(results.arrayValue?[2]["data"]?["redemptions"] == 1)

            // The same batch again is stale: it fails and changes nothing.
            let stale = try suite.run(["docs", "batch", "-"], input: redeem)
            #expect(stale.status == 1)
            #expect(stale.stderr.contains("error:"))
            #expect(try json(suite, ["docs", "get", "users/u1"])["data"]?["points"] == 15)
            #expect(try json(suite, ["docs", "query", "pointTransactions", "--count"])["count"] == 1)

            let updated = try json(
                suite, ["docs", "update", "users/u1", "--increment", "points=1", "--server-timestamp", "at"])
            #expect(updated["data"]?["points"] == 16)
            #expect(updated["data"]?["at"]?["$timestamp"]?.stringValue != nil)
        }

        @Test("queries with each operator return the expected documents")
        func queryOperators() throws {
            let suite = try runner()
            let users: [(String, String)] = [
                ("u1", #"{"points":5,"tags":["coffee"],"city":"Hue"}"#),
                ("u2", #"{"points":10,"tags":["tea","coffee"],"city":"Hanoi"}"#),
                ("u3", #"{"points":20,"tags":["cake"],"city":"Hue"}"#),
                ("u4", #"{"points":"n/a","tags":[],"city":"Da Nang"}"#),
            ]
            for (id, data) in users { _ = try json(suite, ["docs", "set", "users/\(id)", data]) }
            let cases: [(String, [String])] = [
                ("points == 10", ["u2"]),
                ("points != 10", ["u1", "u3", "u4"]),  // Firestore: any type but null differs
                ("points < 10", ["u1"]),
                ("points <= 10", ["u1", "u2"]),
                ("points > 10", ["u3"]),
                ("points >= 10", ["u2", "u3"]),
                (#"city in ["Hue","Da Nang"]"#, ["u1", "u3", "u4"]),
                (#"city not-in ["Hue"]"#, ["u2", "u4"]),
                (#"tags array-contains "coffee""#, ["u1", "u2"]),
                (#"tags array-contains-any ["tea","cake"]"#, ["u2", "u3"]),
                (#"__name__ == "u3""#, ["u3"]),
            ]
            for (expression, expected) in cases {
                let result = try json(suite, ["docs", "query", "users", "--where", expression])
                let ids = (result.arrayValue ?? []).compactMap { $0["path"]?.stringValue?.split(separator: "/").last }
                    .map(String.init).sorted()
                #expect(ids == expected, "where \(expression)")
            }
            let ordered = try json(suite, ["docs", "query", "users", "--order-by", "points:desc", "--limit", "2"])
            #expect(ordered.arrayValue?.map { $0["path"] } == ["users/u4", "users/u3"])
            let page = try json(
                suite, ["docs", "query", "users", "--order-by", "city", "--start-after", #"["Hanoi"]"#])
            #expect(page.arrayValue?.count == 2)
            #expect(try json(suite, ["docs", "query", "users", "--sum", "points"])["sum"] == 35)
        }

        @Test("a query needing a composite index fails with the command to create it; after creating it, it runs")
        func missingIndex() throws {
            let suite = try runner()
            _ = try json(suite, ["docs", "set", "users/u1", #"{"city":"Hue","points":5}"#])
            let arguments = ["docs", "query", "users", "--where", #"city == "Hue""#, "--order-by", "points:desc"]
            let failed = try suite.run(arguments)
            #expect(failed.status == 1)
            #expect(failed.stderr.contains("suite docs index add users city:asc points:desc"))
            #expect(try suite.run(["docs", "index", "add", "users", "city:asc", "points:desc"]).status == 0)
            let plan = try json(suite, arguments + ["--explain"])
            #expect(plan["usesCollectionScan"] == false)
            #expect(try json(suite, arguments).arrayValue?.count == 1)
        }

        @Test("explain on an imported collection shows an index scan that reads only the matches")
        func explainUsesIndex() throws {
            let suite = try runner()
            var lines = ""
            for i in 0..<2000 {
                lines += #"{"id":"o\#(i)","data":{"status":"\#(i % 100 == 0 ? "late" : "ok")","n":\#(i)}}"# + "\n"
            }
            let file = suite.directory.appendingPathComponent("orders.jsonl")
            try lines.write(to: file, atomically: true, encoding: .utf8)
            #expect(try json(suite, ["docs", "import", "orders", file.path])["imported"] == 2000)
            let plan = try json(suite, ["docs", "query", "orders", "--where", #"status == "late""#, "--explain"])
            #expect(plan["usesCollectionScan"] == false)
            #expect(plan["documentsRead"] == 20)
            #expect(plan["results"] == 20)
            let exported = try suite.run(["docs", "export", "orders"])
            #expect(exported.stdout.split(separator: "\n").count == 2000)
        }

        @Test(
            "import commits chunks of --chunk-size; a bad document stops it with its line number, earlier chunks stay")
        func importChunksAndBadLine() throws {
            let suite = try runner()
            var lines = ""
            for i in 0..<25 { lines += #"{"id":"o\#(i)","data":{"n":\#(i)}}"# + "\n" }
            lines += "\n"  // blank lines are skipped but counted
            lines += #"{"id":"bad","data":{"__name__":1}}"# + "\n"
            lines += #"{"id":"after","data":{"n":99}}"# + "\n"
            let file = suite.directory.appendingPathComponent("orders.jsonl")
            try lines.write(to: file, atomically: true, encoding: .utf8)
            let result = try suite.run(["docs", "import", "orders", file.path, "--chunk-size", "10"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("line 27:"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("hint:"), "stderr: \(result.stderr)")
            // Chunks of 10: o0…o19 committed; o20…o24 were pending in the failed chunk.
            let count = try json(suite, ["docs", "query", "orders", "--count"])
            #expect(count["count"] == 20)

            let good = suite.directory.appendingPathComponent("good.jsonl")
            try lines.split(separator: "\n").prefix(25).joined(separator: "\n").write(
                to: good, atomically: true, encoding: .utf8)
            #expect(try json(suite, ["docs", "import", "other", good.path, "--chunk-size", "7"])["imported"] == 25)
        }

        @Test("watch in one process sees writes made by another")
        func watchAcrossProcesses() throws {
            let suite = try runner()
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":1}"#])
            let watcher = try suite.start(["docs", "watch", "users", "--count", "3"])
            // The initial snapshot comes first: only then do the writes count as changes.
            let first = try #require(watcher.readLine())
            _ = try json(suite, ["docs", "set", "users/u2", #"{"points":2}"#])
            _ = try json(suite, ["docs", "update", "users/u1", "--increment", "points=5"])
            let lines = try [first, try #require(watcher.readLine()), try #require(watcher.readLine())].map {
                try JSONValue(parsing: $0)
            }
            #expect(watcher.wait() == 0)
            #expect(lines.map { $0["type"] } == ["added", "added", "modified"])
            #expect(lines.map { $0["path"] } == ["users/u1", "users/u2", "users/u1"])
            #expect(lines[2]["document"]?["data"]?["points"] == 6)
        }

        @Test(
            "watch stops cleanly on SIGINT and SIGTERM: exit 0, observers flushed, the store closed",
            arguments: [SIGINT, SIGTERM])
        func watchStopsOnSignals(_ signal: Int32) throws {
            let suite = try runner()
            try """
            plugins: [EventLog]
            observers: [{engine: eventlog, options: {path: events.jsonl}}]
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":1}"#])
            let watcher = try suite.start(["docs", "watch", "users"])
            _ = try #require(watcher.readLine())
            _ = try json(suite, ["docs", "set", "users/u2", #"{"points":2}"#])
            _ = try #require(watcher.readLine())
            watcher.send(signal)
            #expect(watcher.wait(timeout: 10) == 0)
            #expect(watcher.exitedNormally)
            // The watcher's own listen costs reached the observer before it exited: its queue was drained and flushed.
            let events = try String(contentsOf: suite.directory.appendingPathComponent("events.jsonl"), encoding: .utf8)
            let listens = events.split(separator: "\n").filter { $0.contains(#""kind":"listen""#) }
            #expect(listens.count >= 2, "events: \(events)")
            // Graceful shutdown left no index work behind for the next process.
            let stats = try json(suite, ["docs", "stats"])
            #expect(stats["index"]?["pendingOperations"] != nil)
        }

        @Test("stats counts billed reads and writes per collection, across processes")
        func costs() throws {
            let suite = try runner()
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":1}"#])
            _ = try json(suite, ["docs", "set", "users/u2", #"{"points":2}"#])
            _ = try json(suite, ["docs", "get", "users/u1"])
            _ = try json(suite, ["docs", "query", "users"])
            _ = try json(suite, ["docs", "delete", "users/u2"])
            let stats = try json(suite, ["docs", "stats"])
            let users = stats["byCollection"]?["users"]
            #expect(users?["writes"] == 2)
            #expect(users?["reads"] == 3)
            #expect(users?["deletes"] == 1)
        }

        /// 20 processes read 100 times each, flushing their cost counters after every read, into the store `suite`
        /// uses; `suite docs stats` then counts exactly 2,000 reads, and shows the change log.
        @Test("stats adds up the reads of 20 concurrent processes exactly")
        func costsOfConcurrentProcesses() async throws {
            let suite = try runner()
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":1}"#])
            let files = FileManager.default.enumerator(at: suite.directory, includingPropertiesForKeys: nil)
            let database = try #require(
                files?.compactMap { $0 as? URL }.first { $0.lastPathComponent == "documents.sqlite" })
            let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let process = TestProcess()
                        process.executableURL = TestSupport.binDirectory.appendingPathComponent(
                            "documents-crash-writer")
                        process.arguments = [database.path, "--reads", "100"]
                        process.standardOutput = FileHandle.nullDevice
                        return try await withCheckedThrowingContinuation { continuation in
                            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                            do { try process.run() } catch { continuation.resume(throwing: error) }
                        }
                    }
                }
                return try await group.reduce(into: [Int32]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 0, count: 20))
            let stats = try json(suite, ["docs", "stats"])
            #expect(stats["total"]?["reads"] == 2_000)
            #expect(stats["changeLog"]?["records"] == 1)
            #expect(stats["changeLog"]?["horizon"] == 0)
            let text = try suite.run(["docs", "stats"])
            #expect(text.stdout.contains("reads") && text.stdout.contains("change log: 1 records"), "\(text.stdout)")
        }

        @Test(
            "bad input is refused with an error and a hint, never a crash",
            arguments: [
                (["docs", "set", "users/u1", "{bad"], "not valid JSON"),
                (["docs", "set", "users", "{}"], "collection path"),
                (["docs", "get", "users//u1"], "empty"),
                (["docs", "query", "users", "--where", "points ~ 3"], "unknown operator '~'"),
                (["docs", "update", "users/missing", "--increment", "n=1"], "does not exist"),
                (["docs", "update", "users/u1", "--increment", "name=1"], "increment"),
                (["docs", "update", "users/u1", "--array-union", "tags=3"], "JSON array"),
                (["docs", "get", "users/none"], "does not exist"),
            ])
        func badInput(_ arguments: [String], _ message: String) throws {
            let suite = try runner()
            _ = try json(suite, ["docs", "set", "users/u1", #"{"name":"Ana"}"#])
            let result = try suite.run(arguments)
            #expect(result.exitedNormally)
            #expect(result.status == 1)
            #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("hint:"), "stderr: \(result.stderr)")
        }

        @Test("a documents engine from a plugin is selected by the configuration and behaves like the built-in one")
        func pluginEngine() throws {
            let suite = try runner()
            try """
            plugins: [MemoryDocuments]
            documents: {engine: plugin-sqlite, options: {path: plugged.sqlite}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":10}"#])
            let updated = try json(suite, ["docs", "update", "users/u1", "--increment", "points=5"])
            #expect(updated["data"]?["points"] == 15)
            #expect(try json(suite, ["docs", "query", "users", "--where", "points > 12"]).arrayValue?.count == 1)
            #expect(
                FileManager.default.fileExists(atPath: suite.directory.appendingPathComponent("plugged.sqlite").path))

            try "plugins: [MemoryDocuments]\ndocuments: {engine: nosuch}\n".write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let missing = try suite.run(["docs", "get", "users/u1"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("no documents engine named 'nosuch'"))
            #expect(missing.stderr.contains("plugin-memory"))
        }

        @Test("document writes reach configured observers as bus events")
        func writesReachObservers() throws {
            let suite = try runner()
            try """
            plugins: [EventLog]
            observers: [{engine: eventlog, options: {path: events.jsonl}}]
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            _ = try json(suite, ["docs", "set", "users/u1", #"{"points":10}"#])
            let lines = try String(contentsOf: suite.directory.appendingPathComponent("events.jsonl"), encoding: .utf8)
                .split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let changed = lines.first { $0["name"] == "documents.changed" }
            #expect(changed?["payload"]?.jsonString.contains("users/u1") == true)
            #expect(lines.contains { $0["name"] == "documents.cost" })
        }

        @Test("composite indexes listed in the configuration are declared when the store opens")
        func configuredIndexes() throws {
            let suite = try runner()
            try """
            documents:
              engine: sqlite
              indexes:
                - {collection: users, fields: [city, "points:desc"]}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            _ = try json(suite, ["docs", "set", "users/u1", #"{"city":"Hue","points":5}"#])
            _ = try json(suite, ["docs", "set", "users/u2", #"{"city":"Hue","points":9}"#])
            let result = try json(
                suite, ["docs", "query", "users", "--where", #"city == "Hue""#, "--order-by", "points:desc"])
            #expect(result.arrayValue?.map { $0["path"] } == ["users/u2", "users/u1"])
            let indexes = try json(suite, ["docs", "index", "list"])
            #expect(indexes.arrayValue?.count == 1)
        }
    }
}

// MARK: - Firestore semantics and what a new user tripped on (issue 10)

extension RealBinary.DocsCommandTests {
    /// Runs a command expected to fail; returns its standard error.
    func failure(_ suite: SuiteRunner, _ arguments: [String], input: String? = nil) throws -> String {
        let result = try suite.run(arguments, input: input)
        #expect(result.status != 0, "suite \(arguments.joined(separator: " ")) succeeded: \(result.stdout)")
        return result.stderr
    }

    @Test("set --merge with a nested map sets h.g and keeps h's other fields; --merge-fields takes nested paths")
    func nestedMerge() throws {
        let suite = try runner()
        _ = try json(suite, ["docs", "set", "docs/d", #"{"h":{"g":1,"k":2}}"#])
        let merged = try json(suite, ["docs", "set", "docs/d", #"{"h":{"g":3}}"#, "--merge"])
        #expect(merged["data"] == ["h": ["g": 3, "k": 2]])
        let masked = try json(suite, ["docs", "set", "docs/d", #"{"h":{"g":4,"x":1}}"#, "--merge-fields", "h.g"])
        #expect(masked["data"] == ["h": ["g": 4, "k": 2]])
    }

    @Test("quoted where fields with more segments, empty cursors, the last cursor given, several inequalities")
    func querySemantics() throws {
        let suite = try runner()
        _ = try json(suite, ["docs", "set", "docs/d1", #"{"*":{"~":4},"n":1,"m":"b"}"#])
        _ = try json(suite, ["docs", "set", "docs/d2", #"{"*":{"~":5},"n":2,"m":"a"}"#])
        _ = try json(suite, ["docs", "set", "docs/d3", #"{"n":3,"m":"c"}"#])
        let quoted = try json(suite, ["docs", "query", "docs", "--where", "`*`.`~` == 4"])
        #expect(quoted.arrayValue?.map { $0["path"] } == ["docs/d1"])

        #expect(try failure(suite, ["docs", "query", "docs", "--order-by", "n", "--start-at", "[]"]).contains("[]"))
        let lastStart = ["docs", "query", "docs", "--order-by", "n", "--start-at", "[1]", "--start-after", "[2]"]
        #expect(try json(suite, lastStart).arrayValue?.map { $0["path"] } == ["docs/d3"])
        let otherOrder = ["docs", "query", "docs", "--order-by", "n", "--start-after=[2]", "--start-at", "[1]"]
        #expect(try json(suite, otherOrder).arrayValue?.count == 3)

        let inequalities = ["docs", "query", "docs", "--where", "n >= 2", "--where", #"m < "c""#]
        let missing = try failure(suite, inequalities)
        #expect(missing.contains("suite docs index add docs m:asc n:asc"))
        #expect(!missing.contains("declareIndex"))
        #expect(try suite.run(["docs", "index", "add", "docs", "m", "n"]).status == 0)
        #expect(try json(suite, inequalities).arrayValue?.map { $0["path"] } == ["docs/d2"])
    }

    @Test("an update with overlapping paths, no fields or a reserved character in a path is refused, every time")
    func strictUpdates() throws {
        let suite = try runner()
        let version = try json(suite, ["docs", "set", "docs/d", #"{"a":{"b":0}}"#])["version"]
        for _ in 0..<3 {
            let overlap = try failure(suite, ["docs", "update", "docs/d", #"{"a.b":1,"a":2}"#])
            #expect(overlap.contains("'a' and 'a.b'"))
        }
        #expect(try failure(suite, ["docs", "update", "docs/d", "{}"]).contains("at least one field"))
        #expect(try failure(suite, ["docs", "update", "docs/d", "--increment", "a/b=1"]).contains("reserves"))
        #expect(try failure(suite, ["docs", "query", "docs", "--where", "a[0] == 1"]).contains("reserves"))
        #expect(try json(suite, ["docs", "get", "docs/d"])["version"] == version)
        let quoted = try json(suite, ["docs", "update", "docs/d", "--increment", "`a/b`=1"])
        #expect(quoted["data"]?["a/b"] == 1)
    }

    @Test("a batch with a misspelled key, no data or an empty update fails naming the write; nothing is applied")
    func strictBatch() throws {
        let suite = try runner()
        let cases: [(String, String)] = [
            (#"{"op":"set","path":"users/u1","date":{"points":1}}"#, #"write #2: unknown key "date""#),
            (#"{"op":"set","path":"users/u1"}"#, #"write #2: a set needs "data""#),
            (#"{"op":"update","path":"users/u0","data":{}}"#, "write #2: an update needs at least one field"),
        ]
        let version = try json(suite, ["docs", "set", "users/u0", #"{"points":1}"#])["version"]
        for (write, message) in cases {
            let batch = #"[{"op":"set","path":"users/u9","data":{}}, "# + write + "]"
            #expect(try failure(suite, ["docs", "batch", "-"], input: batch).contains(message))
        }
        #expect(try suite.run(["docs", "get", "users/u9"]).status == 1)
        #expect(try suite.run(["docs", "get", "users/u1"]).status == 1)
        #expect(try json(suite, ["docs", "get", "users/u0"])["version"] == version)
    }

    @Test("order and index directions are strict; dropping a missing index is an error")
    func strictDirections() throws {
        let suite = try runner()
        for (id, points) in [("u1", 5), ("u2", 20)] {
            _ = try json(suite, ["docs", "set", "users/\(id)", #"{"points":\#(points)}"#])
        }
        let bad = try failure(suite, ["docs", "query", "users", "--order-by", "points:descending"])
        #expect(bad.contains("unknown direction 'descending'"))
        let ordered = try json(suite, ["docs", "query", "users", "--order-by", "points:DESC"])
        #expect(ordered.arrayValue?.map { $0["path"] } == ["users/u2", "users/u1"])
        #expect(try failure(suite, ["docs", "index", "add", "users", "city:sideways"]).contains("sideways"))
        #expect(try json(suite, ["docs", "index", "list"]).arrayValue?.isEmpty == true)
        #expect(try failure(suite, ["docs", "index", "drop", "users", "city", "points"]).contains("no index"))
    }

    @Test("docs set reads - (standard input) and @file; an integer beyond 64 bits is an error")
    func setFromStdinAndFile() throws {
        let suite = try runner()
        let big = String(repeating: "x", count: 200_000)
        let piped = try json(suite, ["docs", "set", "docs/big", "-"], input: #"{"text":"\#(big)"}"#)
        #expect(piped["data"]?["text"]?.stringValue?.count == 200_000)
        let file = suite.directory.appendingPathComponent("doc.json")
        try #"{"n":7}"#.write(to: file, atomically: true, encoding: .utf8)
        #expect(try json(suite, ["docs", "set", "docs/f", "@" + file.path])["data"] == ["n": 7])
        #expect(try failure(suite, ["docs", "set", "docs/f", "@/no/such/file.json"]).contains("cannot read"))

        let huge = try failure(suite, ["docs", "set", "docs/n", #"{"n":100000000000000000000000}"#])
        #expect(huge.contains("outside the 64-bit range"))
        let cursor = try failure(
            suite, ["docs", "query", "docs", "--order-by", "n", "--start-at", "99999999999999999999"])
        #expect(cursor.contains("outside the 64-bit range"))
        _ = try json(suite, ["docs", "set", "docs/n", #"{"n":9223372036854775800}"#])
        let clamped = try json(suite, ["docs", "update", "docs/n", "--increment", "n=100"])
        #expect(clamped["data"]?["n"] == .int(.max))
    }

    @Test("errors name flags, not Swift calls; with --json they are one JSON object on stderr")
    func cliHintsAndJSONErrors() throws {
        let suite = try runner()
        let update = try failure(suite, ["docs", "update", "users/nobody", #"{"a":1}"#])
        #expect(update.contains("--merge"))
        #expect(!update.contains("setData"))
        let last = try failure(suite, ["docs", "query", "users", "--limit-to-last", "1"])
        #expect(last.contains("--limit-to-last needs at least one order-by"))
        #expect(last.contains("--order-by"))
        #expect(!last.contains("limit(toLast:)"))
        let order = try failure(suite, ["docs", "query", "users", "--where", "a > 1", "--order-by", "b"])
        #expect(order.contains("add --order-by a first"))

        for arguments in [
            ["docs", "update", "users/nobody", #"{"a":1}"#], ["docs", "update", "users/u1"],
            ["docs", "query", "users", "--count", "--explain"], ["docs", "get", "users/nobody"],
            ["docs", "batch", "-"], ["docs", "query", "users", "--no-such-flag"], ["docs", "set", "users/u1"],
        ] {
            let result = try suite.run(arguments + ["--json"], input: "[{}]")
            #expect(result.status != 0)
            let error = try JSONValue(parsing: result.stderr)
            #expect(error["error"]?["message"]?.stringValue?.isEmpty == false, "\(arguments): \(result.stderr)")
        }
    }

    @Test("a collection-group query's table shows each row's path")
    func groupTableShowsPaths() throws {
        let suite = try runner()
        _ = try json(suite, ["docs", "set", "users/u1/orders/o1", #"{"total":5}"#])
        _ = try json(suite, ["docs", "set", "users/u2/orders/o1", #"{"total":7}"#])
        let table = try suite.run(["docs", "query", "orders", "--group"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("PATH"))
        #expect(table.stdout.contains("users/u1/orders/o1"))
        #expect(table.stdout.contains("users/u2/orders/o1"))
    }
}
