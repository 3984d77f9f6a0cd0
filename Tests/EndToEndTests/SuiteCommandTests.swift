import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

extension RealBinary {
    @Suite("suite command (real binary)")
    struct SuiteCommandTests {
        func runner(_ environment: [String: String] = [:]) throws -> SuiteRunner {
            SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-e2e"), environment: environment)
        }

        @Test("--help lists every subcommand and the exit codes; --version prints the version")
        func help() throws {
            let suite = try runner()
            let help = try suite.run(["--help"])
            #expect(help.status == 0)
            for subcommand in ["status", "plugins", "config", "events"] { #expect(help.stdout.contains(subcommand)) }
            #expect(help.stdout.contains("Exit codes"))
            let version = try suite.run(["--version"])
            #expect(version.status == 0)
            #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.2.0")
        }

        @Test(
            "suite loads no FoundationNetworking (libcurl and ~30 libraries at every start): its HTTP is AsyncHTTPClient's"
        )
        func linksNoFoundationNetworking() throws {
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
            process.arguments = [TestSupport.binDirectory.appendingPathComponent("suite").path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let ldd = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(ldd.contains("libswiftCore.so"), "ldd printed: \(ldd)")
            #expect(!ldd.contains("libFoundationNetworking"), "ldd printed: \(ldd)")
            #expect(!ldd.contains("libcurl"), "ldd printed: \(ldd)")
        }

        @Test("status on the embedded defaults reports each module and the data directory, as text and as JSON")
        func status() throws {
            let suite = try runner()
            let text = try suite.run(["status"])
            #expect(text.status == 0)
            #expect(text.stdout.contains("Documents"))
            #expect(text.stdout.contains(suite.directory.path + "/xdg-data/suite"))
            let json = try JSONValue(parsing: try suite.run(["status", "--json"]).stdout)
            #expect(json["dataDirectory"] == .string(suite.directory.path + "/xdg-data/suite"))
            #expect(json["healthy"] == true)
        }

        @Test("plugins inspect prints the engines of EventLog and CTally, by name, with --json before or after")
        func inspect() throws {
            let suite = try runner()
            let eventLog = try suite.run(["plugins", "inspect", "EventLog"])
            #expect(eventLog.status == 0)
            #expect(eventLog.stdout.contains("eventlog"))
            let before = try JSONValue(parsing: try suite.run(["--json", "plugins", "inspect", "CTally"]).stdout)
            let after = try JSONValue(parsing: try suite.run(["plugins", "inspect", "CTally", "--json"]).stdout)
            #expect(before == after)
            #expect(before["engines"] == [["kind": "observer", "name": "ctally"]])
        }

        @Test("events emit reaches both plugin observers named in the configuration")
        func emitToObservers() throws {
            let suite = try runner()
            try """
            plugins: [EventLog, CTally]
            observers:
              - {engine: eventlog, options: {path: events.jsonl}}
              - {engine: ctally, options: {path: names.txt}}
            """.write(to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let result = try suite.run(["events", "emit", "demo.hello", "--payload", #"{"n":1}"#])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let lines = try String(contentsOf: suite.directory.appendingPathComponent("events.jsonl"), encoding: .utf8)
                .split(separator: "\n")
            #expect(lines.count == 1)
            let event = try JSONValue(parsing: String(lines[0]))
            #expect(event["name"] == "demo.hello")
            #expect(event["payload"] == ["n": 1])
            #expect(event["time"]?.stringValue?.hasSuffix("Z") == true)
            let names = try String(contentsOf: suite.directory.appendingPathComponent("names.txt"), encoding: .utf8)
            #expect(names == "demo.hello\n")
            let list = try JSONValue(parsing: try suite.run(["plugins", "list", "--json"]).stdout)
            #expect(list.arrayValue?.count == 2)
        }

        @Test("config show reports where each value came from: file, env, flag")
        func configShow() throws {
            let suite = try runner(["SUITE_LOG_LEVEL": "error"])
            try "plugins: [EventLog]\n".write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let json = try JSONValue(
                parsing: try suite.run(["config", "show", "--json", "--data-dir", "/tmp/flagged"]).stdout)
            #expect(json["values"]?["plugins"]?["source"]?.stringValue?.hasPrefix("file ") == true)
            #expect(json["values"]?["log-level"]?["source"] == "env SUITE_LOG_LEVEL")
            #expect(json["values"]?["data-dir"]?["value"] == "/tmp/flagged")
            #expect(json["values"]?["data-dir"]?["source"] == "flag --data-dir")
        }

        @Test(
            "each plugin failure exits 1 with an error naming the file and the reason, never a crash",
            arguments: [
                ("missing", "does not exist"),
                ("text", "not a loadable shared object"),
                ("sqlite", "does not export the entry symbol"),
                ("badabi", "ABI version 999"),
            ])
        func pluginFailures(_ kind: String, _ reason: String) throws {
            let suite = try runner()
            let path: String
            switch kind {
            case "missing": path = suite.directory.appendingPathComponent("libGone.so").path
            case "text":
                path = suite.directory.appendingPathComponent("libText.so").path
                try "hello".write(toFile: path, atomically: true, encoding: .utf8)
            case "sqlite": path = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
            default: path = TestSupport.plugin("BadABI")
            }
            for arguments in [["plugins", "inspect", path], ["--config", "c.yaml", "events", "emit", "x"]] {
                try "plugins: [\(path)]\n".write(
                    to: suite.directory.appendingPathComponent("c.yaml"), atomically: true, encoding: .utf8)
                let result = try suite.run(arguments)
                #expect(result.exitedNormally)
                #expect(result.status == 1)
                #expect(result.stderr.contains("error: "))
                #expect(result.stderr.contains(path))
                #expect(result.stderr.contains(reason))
            }
        }

        @Test("engine creation failures and unknown engines exit 1 with the plugin's own message")
        func engineFailures() throws {
            let suite = try runner()
            let cases = [
                ("plugins: [CTally]\nobservers: [{engine: ctally}]\n", "needs a 'path' option"),
                (
                    "plugins: [EventLog]\nobservers: [{engine: eventlog, options: {path: /no/such/dir/x}}]\n",
                    "cannot open"
                ),
                (
                    "plugins: [EventLog]\nobservers: [{engine: nosuch}]\n",
                    "no loaded plugin provides observer engine 'nosuch'"
                ),
            ]
            for (config, message) in cases {
                try config.write(
                    to: suite.directory.appendingPathComponent("c.yaml"), atomically: true, encoding: .utf8)
                let result = try suite.run(["--config", "c.yaml", "events", "emit", "x"])
                #expect(result.exitedNormally)
                #expect(result.status == 1)
                #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
            }
        }

        @Test("a misspelled command, at any level, names the closest one and the list; --json too; exit 64")
        func misspelledCommands() throws {
            let suite = try runner()
            let top = try suite.run(["--data-dir", suite.directory.path, "dcos", "get", "users/a"])
            #expect(top.status == 64)
            #expect(top.stderr.contains("error: 'dcos' is not a command of `suite`"), "\(top.stderr)")
            #expect(top.stderr.contains("hint: did you mean 'docs'? `suite --help` lists them: status, docs,"))
            let nested = try suite.run(["docs", "index", "verfy"])
            #expect(nested.status == 64)
            #expect(nested.stderr.contains("'verfy' is not a command of `suite docs index`"), "\(nested.stderr)")
            #expect(nested.stderr.contains("did you mean 'verify'?"))
            let json = try suite.run(["sync", "stauts", "--json"])
            #expect(json.status == 64)
            let error = try JSONValue(parsing: json.stderr)["error"]
            #expect(error?["message"] == "'stauts' is not a command of `suite sync`")
            #expect(error?["hint"]?.stringValue?.hasPrefix("did you mean 'status'?") == true, "\(json.stderr)")
            let far = try suite.run(["zzzz"])
            #expect(far.status == 64)
            #expect(!far.stderr.contains("did you mean") && far.stderr.contains("`suite --help` lists them"))
            // A leaf's own errors stay ArgumentParser's: a missing argument, an unknown option with its suggestion.
            let missing = try suite.run(["docs", "get"])
            #expect(missing.status == 64 && missing.stderr.contains("Missing expected argument '<path>'"))
            let option = try suite.run(["docs", "get", "users/a", "--jsn"])
            #expect(option.status == 64 && option.stderr.contains("Did you mean '--json'?"))
        }

        @Test("bad input is refused cleanly: bad JSON payload, bad configuration, bad flag value")
        func badInput() throws {
            let suite = try runner()
            let payload = try suite.run(["events", "emit", "x", "--payload", "{nope"])
            #expect(payload.status == 1)
            #expect(payload.stderr.contains("not valid JSON"))
            #expect(payload.stderr.contains("hint:"))
            try "plugin_path: [x]\n".write(
                to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            let config = try suite.run(["status"])
            #expect(config.status == 1)
            #expect(config.stderr.contains("unknown key 'plugin_path'"))
            let level = try suite.run(["status", "--log-level", "loud"])
            #expect(level.status == 64)
            #expect(level.exitedNormally)
        }

        @Test(
            "a typo in a module's section fails every command with the key, file, line and a did-you-mean; --json too")
        func configurationTypos() throws {
            let suite = try runner()
            let file = suite.directory.appendingPathComponent("suite.yaml")
            try "documents:\n  engine: sqlite\n  options:\n    duribility: full\n".write(
                to: file, atomically: true, encoding: .utf8)
            for arguments in [["status"], ["docs", "get", "users/u1"], ["config", "show"]] {
                let result = try suite.run(arguments)
                #expect(result.status == 1)
                #expect(
                    result.stderr.contains("'documents.options.duribility' in \(file.path) (line 4)"),
                    "\(result.stderr)")
                #expect(result.stderr.contains("hint: did you mean 'durability'?"), "\(result.stderr)")
            }
            let json = try suite.run(["status", "--json"])
            #expect(json.status == 1)
            let error = try JSONValue(parsing: json.stderr)
            #expect(error["error"]?["message"]?.stringValue?.contains("duribility") == true)
            #expect(error["error"]?["hint"]?.stringValue?.contains("durability") == true)

            try "documents: {engine: sqlit}\n".write(to: file, atomically: true, encoding: .utf8)
            let engine = try suite.run(["docs", "get", "users/u1"])
            #expect(engine.status == 1)
            #expect(engine.stderr.contains("no documents engine named 'sqlit'"), "\(engine.stderr)")
            #expect(engine.stderr.contains("did you mean 'sqlite'?"), "\(engine.stderr)")

            try "plugin-timeout: 0\n".write(to: file, atomically: true, encoding: .utf8)
            #expect(try suite.run(["status"]).stderr.contains("plugin-timeout"))
        }

        @Test("status shows every module's engine, data file and health, with the store's pending index work")
        func statusPerModule() throws {
            let suite = try runner()
            #expect(try suite.run(["docs", "set", "users/u1", #"{"points":1}"#]).status == 0)
            let result = try suite.run(["status", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let status = try JSONValue(parsing: result.stdout)
            let modules = status["modules"]?.arrayValue ?? []
            #expect(
                modules.compactMap { $0["name"]?.stringValue } == [
                    "Documents", "Cache", "Analytics", "Storage", "Work", "Server", "Sync", "Observers",
                ])
            // Work tracking keeps its days in the Documents store.
            #expect(modules.first { $0["name"] == "Work" }?["engine"] == "documents")
            let documents = modules.first
            // The docs command's bus events were recorded into the analytics queue, then delivered to the sqlite engine.
            let analytics = modules.first { $0["name"] == "Analytics" }
            #expect(analytics?["engine"] == "sqlite")
            #expect(analytics?["location"]?.stringValue?.hasSuffix("/analytics-queue.sqlite") == true)
            #expect(analytics?["details"]?["queued"] == "0")
            #expect(documents?["engine"] == "sqlite")
            #expect(documents?["location"]?.stringValue?.hasSuffix("/documents.sqlite") == true)
            #expect(documents?["details"]?["pending index operations"] != nil)
            #expect(status["bus"]?["dropped"] == 0)
            let text = try suite.run(["status"]).stdout
            #expect(text.contains("pending index operations"))
        }
    }
}
