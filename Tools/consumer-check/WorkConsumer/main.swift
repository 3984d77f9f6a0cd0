// A newcomer's program on the WorkTracking product alone: the README's first example on a SQLite file in the
// directory given as the first argument, then the day ended and its report read, checking its own results.
// Tools/consumer-check.sh builds and runs it.
import Documents
import Foundation
import SuiteCore
import WorkTracking

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("WorkConsumer: \(message())\n".utf8))
    exit(1)
}

check(CommandLine.arguments.count == 2, "usage: WorkConsumer DIRECTORY")
let path = CommandLine.arguments[1] + "/work.sqlite"

// MARK: - The README's example

let store = DocumentStore(engine: try SQLiteDocumentEngine(path: path), bus: EventBus())
let tracker = WorkTracker(store: store, defaults: try WorkSettings(timeZone: "Europe/Berlin"))
try await tracker.perform(.start, user: "ana")
try await tracker.perform(.pause, user: "ana")  // a break: never counted as work
try await tracker.perform(.resume, user: "ana")
let week = try await tracker.week(user: "ana")  // workedSeconds, breakSeconds, plannedSeconds, overtimeSeconds, days
let start = try WorkTime.parse("08:00", on: WorkDate("2026-11-23"), in: TimeZone(identifier: "Europe/Berlin")!)
try await tracker.edit(
    user: "ana", date: try WorkDate("2026-11-23"), WorkEdit(start: start, end: start.addingTimeInterval(8 * 3600)))
let edited = try await tracker.day(user: "ana", date: WorkDate("2026-11-23"))
try await tracker.undo(user: "ana")  // the edit is taken back
var refusal = ""
do {
    try await tracker.perform(.resume, user: "ana")
} catch let error as WorkError {
    print(error.message)  // cannot resume: the day 2026-11-24 is working (hint: from working: break, end)
    refusal = error.message
}

// MARK: - The day ended, and its report

let ended = try await tracker.perform(.end, user: "ana")
let today = ended.workDate
let report = try await tracker.report(user: "ana", from: today, through: today)
let undone = try await tracker.day(user: "ana", date: WorkDate("2026-11-23"))
await store.close()

// MARK: - Checks

check(week.daysWorked <= 1, "this week has \(week.daysWorked) days worked before any edit")
check(edited?.workedSeconds == 8 * 3600, "the edited day worked \(edited?.workedSeconds ?? -1) s, expected 8 h")
check(undone == nil, "undo left the edited day: \(String(describing: undone))")
check(refusal.contains("cannot resume"), "resuming a working day was not refused (\(refusal))")
check(ended.status == .ended, "the day is \(ended.status) after end")
check(
    report.days.count == 1 && report.days.first?.status == .ended, "the report of \(today): \(report.days)")
check(report.breakSeconds >= 0 && report.workedSeconds >= 0, "negative totals: \(report)")
print("WorkConsumer: ok (\(today) started, paused, resumed, ended; edit undone; resume refused)")
