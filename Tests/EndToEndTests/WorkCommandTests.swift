import Foundation
import SuiteCore
import SuiteTestSupport
import Testing

extension RealBinary {
    /// `suite work` through the real binary, and against Timewarrior itself.
    @Suite("suite work (real binary)")
    struct WorkCommandTests {
        /// A runner whose configuration records days in UTC for user `ana`.
        struct Fixture {
            let suite: SuiteRunner

            init(config: String = "work: {user: ana, time-zone: UTC}\n") throws {
                suite = SuiteRunner(directory: try TestSupport.makeTemporaryDirectory("suite-work"))
                try config.write(
                    to: suite.directory.appendingPathComponent("suite.yaml"), atomically: true, encoding: .utf8)
            }

            func run(_ arguments: [String]) throws -> CommandResult { try suite.run(["work"] + arguments) }

            @discardableResult
            func ok(_ arguments: [String]) throws -> String {
                let result = try run(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result.stdout
            }

            func json(_ arguments: [String]) throws -> JSONValue {
                try JSONValue(parsing: try ok(arguments + ["--json"]))
            }

            func seconds(_ value: JSONValue, _ key: String) -> Int64? { value.objectValue?[key]?.intValue }
        }

        @Test func theFlowReportsAndRefusesWithHints() throws {
            let fixture = try Fixture()
            try fixture.ok(["start", "--at", "2026-11-02T08:00Z"])
            try fixture.ok(["break", "--at", "2026-11-02T12:00Z"])
            try fixture.ok(["resume", "--at", "2026-11-02T12:30Z", "--note", "lunch"])
            let refused = try fixture.run(["resume"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("error: cannot resume: the day 2026-11-02 is working"))
            #expect(refused.stderr.contains("hint: from working: break (→ break), end (→ ended)"))
            try fixture.ok(["end", "--at", "2026-11-02T17:00Z"])
            let week = try fixture.json(["week", "--date", "2026-11-02"])
            let worked: Int64 = 8 * 3600 + 1800  // 08:00–17:00 less 30 minutes
            let planned: Int64 = 5 * 8 * 3600
            #expect(fixture.seconds(week, "workedSeconds") == worked)
            #expect(fixture.seconds(week, "breakSeconds") == 1800)
            #expect(fixture.seconds(week, "plannedSeconds") == planned)
            #expect(fixture.seconds(week, "overtimeSeconds") == worked - planned)
            #expect(week.objectValue?["days"]?.arrayValue?.count == 7)
            let table = try fixture.ok(["month", "--month", "2026-11"])
            #expect(table.contains("2026-11-02  mon  ended") && table.contains("█"))
            #expect(try fixture.ok(["month", "--month", "2026-11", "--calendar"]).contains(" 2 8.5h"))

            try fixture.ok(["edit", "2026-11-02", "--break", "12:00-12:45"])
            #expect(
                fixture.seconds(try fixture.json(["today", "--date", "2026-11-02"]), "workedSeconds") == 9 * 3600 - 2700
            )
            let overlap = try fixture.run(["edit", "2026-11-02", "--break", "12:00-12:45", "--break", "12:30-13:00"])
            #expect(overlap.status == 1 && overlap.stderr.contains("overlaps the break 12:00–12:45"))
            try fixture.ok(["undo"])
            #expect(
                fixture.seconds(try fixture.json(["today", "--date", "2026-11-02"]), "workedSeconds") == 9 * 3600 - 1800
            )
            let log = try fixture.ok(["log", "--since", "2026-11-01"])
            #expect(log.contains("resume") && log.contains("lunch") && log.contains("undo"))

            // Wrong input: a clear error and a hint, never a trap.
            for (arguments, text) in [
                (["start", "--at", "8am"], "'8am' is not a time"),
                (["month", "--month", "2026-13"], "'2026-13' is not a month"),
                (["export", "--format", "csvv"], "did you mean 'csv'"),
                (["import", "--format", "timewarrior", "missing.json"], "cannot read missing.json"),
                (["edit", "2026-11-02", "--break", "noon"], "'noon' is not a break"),
                (["settings", "--first-weekday", "mondy"], "did you mean 'monday'"),
            ] {
                let result = try fixture.run(arguments)
                #expect(result.exitedNormally && result.status != 0, "\(arguments)")
                #expect(result.stderr.contains(text), "\(arguments): \(result.stderr)")
            }
            let typo = try Fixture(config: "work: {user: ana, time-zon: UTC}\n")
            let result = try typo.run(["status"])
            #expect(result.status == 1 && result.stderr.contains("time-zone"), "\(result.stderr)")
        }

        @Test func importAndExportRoundTrip() throws {
            let fixture = try Fixture()
            for (start, pause, resume, end) in [
                ("2026-11-02T08:00Z", "2026-11-02T12:00Z", "2026-11-02T12:40Z", "2026-11-02T16:30Z"),
                ("2026-11-03T09:15Z", "2026-11-03T13:00Z", "2026-11-03T13:20Z", "2026-11-03T18:05Z"),
            ] {
                try fixture.ok(["start", "--at", start])
                try fixture.ok(["break", "--at", pause])
                try fixture.ok(["resume", "--at", resume])
                try fixture.ok(["end", "--at", end])
            }
            let exported = fixture.suite.directory.appendingPathComponent("tw.json").path
            try fixture.ok([
                "export", "--format", "timewarrior", "--from", "2026-11-01", "--to", "2026-11-30", "-o", exported,
            ])
            try fixture.ok(["import", "--format", "timewarrior", exported, "--user", "bo", "--gaps-as-breaks"])
            let json = fixture.suite.directory.appendingPathComponent("days.json").path
            try fixture.ok(["export", "--format", "json", "--from", "2026-11-01", "--to", "2026-11-30", "-o", json])
            try fixture.ok(["import", "--format", "json", json, "--user", "cy"])
            let ana = try fixture.json(["week", "--date", "2026-11-02"])
            for user in ["bo", "cy"] {
                let other = try fixture.json(["week", "--date", "2026-11-02", "--user", user])
                for key in ["workedSeconds", "breakSeconds", "plannedSeconds"] {
                    #expect(fixture.seconds(other, key) == fixture.seconds(ana, key), "\(user) \(key)")
                }
            }
            let again = try fixture.run(["import", "--format", "json", json, "--user", "cy"])
            #expect(again.status == 1 && again.stderr.contains("already has a day 2026-11-02"))
            let csv = try fixture.ok(["export", "--format", "csv", "--from", "2026-11-01", "--to", "2026-11-30"])
            #expect(csv.split(separator: "\n").count == 3)
            #expect(csv.contains("2026-11-02,ended,2026-11-02T08:00:00+00:00,2026-11-02T16:30:00+00:00,28200,2400"))
        }

        /// The same intervals tracked in Timewarrior and in Suite give the same day and week totals (Timewarrior
        /// splits days at midnight, so Suite's day totals are compared with --split-at-midnight).
        @Test func totalsMatchTimewarrior() throws {
            let fixture = try Fixture()
            let database = fixture.suite.directory.appendingPathComponent("timewarrior")
            try FileManager.default.createDirectory(
                at: database.appendingPathComponent("data"), withIntermediateDirectories: true)
            try Data().write(to: database.appendingPathComponent("timewarrior.cfg"))
            func timew(_ arguments: [String]) throws -> String {
                let process = TestProcess()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/timew")
                process.arguments = arguments
                process.environment = [
                    "TIMEWARRIORDB": database.path, "TZ": "UTC", "HOME": fixture.suite.directory.path,
                ]
                let out = Pipe()
                process.standardOutput = out
                process.standardError = Pipe()
                try process.run()
                let data = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "timew \(arguments)")
                return String(decoding: data, as: UTF8.self)
            }
            /// The grand total a `timew summary` prints last, in seconds.
            func total(_ summary: String) -> Int64? {
                guard
                    let last = summary.split(separator: "\n").last(where: {
                        !$0.trimmingCharacters(in: .whitespaces).isEmpty
                    })
                else { return nil }
                let parts = last.trimmingCharacters(in: .whitespaces).split(separator: ":").compactMap { Int64($0) }
                return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
            }
            // Work with breaks, a day past midnight, a short day.
            let days: [[(String, String)]] = [
                [("2026-11-02T08:00:00Z", "2026-11-02T12:00:00Z"), ("2026-11-02T12:45:00Z", "2026-11-02T17:10:00Z")],
                [("2026-11-03T21:00:00Z", "2026-11-03T23:00:00Z"), ("2026-11-03T23:20:00Z", "2026-11-04T01:30:00Z")],
                [
                    ("2026-11-05T09:00:00Z", "2026-11-05T10:00:00Z"), ("2026-11-05T10:05:00Z", "2026-11-05T11:00:00Z"),
                    ("2026-11-05T13:00:00Z", "2026-11-05T15:33:00Z"),
                ],
            ]
            for intervals in days {
                for (index, (start, end)) in intervals.enumerated() {
                    _ = try timew(["track", start, "-", end, "work"])
                    try fixture.ok([index == 0 ? "start" : "resume", "--at", start])
                    try fixture.ok([index == intervals.count - 1 ? "end" : "break", "--at", end])
                }
            }
            let week = try fixture.json(["week", "--date", "2026-11-02"])
            #expect(
                fixture.seconds(week, "workedSeconds")
                    == total(try timew(["summary", "2026-11-02", "-", "2026-11-09"])))
            for date in ["2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05"] {
                let next = String(format: "2026-11-%02d", (Int(date.suffix(2)) ?? 0) + 1)
                let ours = try fixture.json(["today", "--date", date, "--split-at-midnight"])
                #expect(
                    fixture.seconds(ours, "workedSeconds") == total(try timew(["summary", date, "-", next])), "\(date)")
            }
        }
    }
}
