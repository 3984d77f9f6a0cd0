import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import WorkTracking

/// `suite-bench work`: a year of one user's work against Timewarrior on the same intervals, and the library's month
/// cache and team view.
enum WorkBenchmarks {
    static func run(scale: Double) async throws -> [BenchResult] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("suite-bench-work-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let intervals = year()
        // Suite: the intervals imported through the library into the data directory `suite` will read.
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: data.appendingPathComponent("documents.sqlite").path))
        let utc = try WorkSettings(timeZone: "UTC")
        let tracker = WorkTracker(store: store, defaults: utc)
        try await tracker.importDays(
            try timewarriorJSON(intervals), format: .timewarrior, user: "ana", gapsAsBreaks: true)
        // Timewarrior: the same intervals in its own data files.
        let timewarrior = directory.appendingPathComponent("timewarrior")
        try FileManager.default.createDirectory(
            at: timewarrior.appendingPathComponent("data"), withIntermediateDirectories: true)
        try Data().write(to: timewarrior.appendingPathComponent("timewarrior.cfg"))
        var files: [String: String] = [:]
        for (start, end) in intervals {
            let month = String(WorkInterop.timewarriorTime(start).prefix(6))
            let name = "\(month.prefix(4))-\(month.suffix(2)).data"
            files[name, default: ""] +=
                "inc \(WorkInterop.timewarriorTime(start)) - \(WorkInterop.timewarriorTime(end)) # work\n"
        }
        for (name, text) in files {
            try text.write(
                to: timewarrior.appendingPathComponent("data").appendingPathComponent(name), atomically: true,
                encoding: .utf8)
        }
        try "work\n".write(to: timewarrior.appendingPathComponent("data/tags.data"), atomically: true, encoding: .utf8)
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let suite = binDirectory.appendingPathComponent("suite").path
        let environment = [
            "HOME": directory.path, "TZ": "UTC", "TIMEWARRIORDB": timewarrior.path,
            "XDG_CONFIG_HOME": directory.appendingPathComponent("config").path,
        ]
        func seconds(_ executable: String, _ arguments: [String]) throws -> Double {
            var best = Double.infinity
            for run in 0...5 {
                let elapsed = try WholeProcess.seconds(executable, arguments, environment)
                if run > 0 { best = min(best, elapsed) }
            }
            return best
        }
        let common = ["--data-dir", data.path, "--user", "ana"]
        let suiteMonth = try seconds(suite, ["work", "month", "--month", "2026-06"] + common)
        let timewMonth = try seconds("/usr/bin/timew", ["summary", "2026-06-01", "-", "2026-07-01"])
        let suiteYear = try seconds(suite, ["work", "range", "--from", "2026-01-01", "--to", "2026-12-31"] + common)
        let timewYear = try seconds("/usr/bin/timew", ["summary", "2026-01-01", "-", "2027-01-01"])

        // The library: a month from the cache, and 1,000 users' monthly totals.
        let june = try WorkMonth("2026-06")
        _ = try await tracker.month(user: "ana", june)
        let cached = try await bestRate(operations: 1_000) {
            for _ in 0..<1_000 { _ = try await tracker.month(user: "ana", june) }
        }
        let users = max(10, Int(1_000 * scale))
        try await teamData(tracker: tracker, users: users)
        _ = try await tracker.team(month: june)
        let team = try await bestRate(operations: 1, repeats: 5) { _ = try await tracker.team(month: june) }
        await store.close()
        let label = "\(intervals.count) intervals"
        return [
            BenchResult(
                name: "suite work month, whole process (a year, \(label))", ours: 1 / suiteMonth, peer: 1 / timewMonth,
                peerName: "timew summary of the month, same intervals", unit: "op/s", target: "≥ 1"),
            BenchResult(
                name: "suite work range over the year, whole process (\(label))", ours: 1 / suiteYear, peer: 10,
                peerName: "the issue's limit, 100 ms", unit: "op/s", target: "≥ 1"),
            BenchResult(
                name: "suite work range over the year vs Timewarrior (\(label))", ours: 1 / suiteYear,
                peer: 1 / timewYear, peerName: "timew summary of the year, same intervals", unit: "op/s"),
            BenchResult(
                name: "tracker.month from the month cache", ours: cached, peer: 1_000,
                peerName: "the issue's limit, 1 ms", unit: "op/s", target: "≥ 1"),
            BenchResult(
                name: "tracker.team: \(users) users' monthly totals", ours: team, peer: 10 * 1_000 / Double(users),
                peerName: "the issue's limit, 100 ms per 1,000 users", unit: "op/s", target: "≥ 1"),
        ]
    }

    /// A year of working days in UTC: Monday to Friday, 08:00 to about 17:00, with seven short breaks a day.
    static func year() -> [(Date, Date)] {
        var intervals: [(Date, Date)] = []
        var random = SystemRandomNumberGenerator()
        let first = (try? WorkDate("2026-01-01")) ?? WorkDate(daysSinceEpoch: 0)
        for offset in 0..<365 {
            let date = first.adding(days: offset)
            guard (2...6).contains(date.weekday) else { continue }
            var cursor = Double(date.daysSinceEpoch * 86_400 + 8 * 3600 + Int.random(in: 0..<1800, using: &random))
            for _ in 0..<8 {
                let length = Double(Int.random(in: 45..<75, using: &random) * 60)
                intervals.append((Date(timeIntervalSince1970: cursor), Date(timeIntervalSince1970: cursor + length)))
                cursor += length + Double(Int.random(in: 5..<20, using: &random) * 60)
            }
        }
        return intervals
    }

    static func timewarriorJSON(_ intervals: [(Date, Date)]) throws -> Data {
        let list = intervals.map { start, end in
            ["start": WorkInterop.timewarriorTime(start), "end": WorkInterop.timewarriorTime(end)]
        }
        return try JSONSerialization.data(withJSONObject: list)
    }

    /// June for `users` users, 21 days each, written as month summaries and days through the tracker.
    static func teamData(tracker: WorkTracker, users: Int) async throws {
        let june = try WorkMonth("2026-06")
        let days = june.days.filter { (2...6).contains($0.weekday) }
        let intervals = days.map { date -> (Date, Date) in
            let start = Double(date.daysSinceEpoch * 86_400 + 8 * 3600)
            return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: start + 8 * 3600))
        }
        let data = try timewarriorJSON(intervals)
        for user in 0..<users {
            try await tracker.importDays(data, format: .timewarrior, user: String(format: "u%04d", user))
        }
    }
}
