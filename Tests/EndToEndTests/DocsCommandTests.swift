import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

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
        let page = try json(suite, ["docs", "query", "users", "--order-by", "city", "--start-after", #"["Hanoi"]"#])
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

    @Test("import commits chunks of --chunk-size; a bad document stops it with its line number, earlier chunks stay")
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
                    let process = Process()
                    process.executableURL = TestSupport.binDirectory.appendingPathComponent("documents-crash-writer")
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
        #expect(FileManager.default.fileExists(atPath: suite.directory.appendingPathComponent("plugged.sqlite").path))

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
