import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

extension RealBinary {
    @Suite("suite docs index verify|rebuild (real binary)")
    struct DocsIndexCheckCommandTests {
        static let sqlite3 = "/usr/bin/sqlite3"

        func json(_ suite: SuiteRunner, _ arguments: [String], status: Int32 = 0) throws -> JSONValue {
            let result = try suite.run(arguments + ["--json"])
            #expect(result.status == status, "suite \(arguments.joined(separator: " ")): \(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }

        func populated() throws -> SuiteRunner {
            let suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-index-check"))
            for i in 0..<20 {
                let set = try suite.run(["docs", "set", "users/u\(i)", #"{"city":"c\#(i % 3)","points":\#(i)}"#])
                #expect(set.status == 0, "\(set.stderr)")
            }
            #expect(try suite.run(["docs", "index", "add", "users", "city:asc", "points:desc"]).status == 0)
            return suite
        }

        @Test("verify passes on a healthy store, rebuild keeps it so, for all indexes or one")
        func healthyStore() throws {
            let suite = try populated()
            let report = try json(suite, ["docs", "index", "verify"])
            #expect(report["consistent"] == true)
            #expect(report["differenceCount"] == 0)
            // 20 documents: points and city automatic entries, plus the composite index.
            #expect(report["entries"] == 60)
            let text = try suite.run(["docs", "index", "verify"])
            #expect(text.status == 0)
            #expect(text.stdout.contains("index consistent"))
            #expect(text.stderr.contains("verified 60 of 60 entries"))

            #expect(try json(suite, ["docs", "index", "rebuild"])["entries"] == 60)
            #expect(try json(suite, ["docs", "index", "rebuild", "users", "city:asc", "points:desc"])["entries"] == 20)
            #expect(try json(suite, ["docs", "index", "rebuild", "--name", "users|points"])["entries"] == 20)
            #expect(try json(suite, ["docs", "index", "verify", "users", "city:asc", "points:desc"])["entries"] == 20)
            let query = try json(
                suite, ["docs", "query", "users", "--where", #"city == "c1""#, "--order-by", "points:desc"])
            #expect(query.arrayValue?.count == 7)
        }

        @Test("bad selections are command-line errors")
        func badSelections() throws {
            let suite = try populated()
            #expect(try suite.run(["docs", "index", "verify", "users"]).status == 64)
            #expect(try suite.run(["docs", "index", "verify", "users", "city", "--name", "x"]).status == 64)
            #expect(try suite.run(["docs", "index", "rebuild", "--group"]).status == 64)
            #expect(try suite.run(["docs", "index", "verify", "--max-differences", "-1"]).status == 64)
            // A misspelled index matches nothing: an error, never "consistent" or "rebuilt 0".
            for verb in ["verify", "rebuild"] {
                let typo = try suite.run(["docs", "index", verb, "--name", "users|pionts"])
                #expect(typo.status == 1)
                #expect(typo.stderr.contains("no index 'users|pionts'"), "\(typo.stderr)")
                #expect(typo.stderr.contains("hint:"))
            }
        }

        @Test(
            "verify reports lost index entries and exits 1; rebuild repairs them")
        func damagedStore() throws {
            let suite = try populated()
            // Flush everything into runs (a rebuild does), then lose every block behind Suite's back.
            #expect(try suite.run(["docs", "index", "rebuild"]).status == 0)
            let file = suite.directory.appendingPathComponent("xdg-data/suite/documents.sqlite").path
            let sqlite = TestProcess()
            sqlite.executableURL = URL(fileURLWithPath: Self.sqlite3)
            sqlite.arguments = [file, "DELETE FROM index_blocks"]
            try sqlite.run()
            sqlite.waitUntilExit()
            #expect(sqlite.terminationStatus == 0)

            let damaged = try json(suite, ["docs", "index", "verify", "--max-differences", "5"], status: 1)
            #expect(damaged["consistent"] == false)
            #expect(damaged["differenceCount"] == 60)
            #expect(damaged["differences"]?.arrayValue?.count == 5)
            #expect(damaged["differences"]?.arrayValue?.first?["kind"] == "missing")
            let text = try suite.run(["docs", "index", "verify"])
            #expect(text.status == 1)
            #expect(text.stdout.contains("missing users|"))
            #expect(text.stdout.contains("suite docs index rebuild"))

            #expect(try suite.run(["docs", "index", "rebuild"]).status == 0)
            #expect(try json(suite, ["docs", "index", "verify"])["consistent"] == true)
        }
    }
}
