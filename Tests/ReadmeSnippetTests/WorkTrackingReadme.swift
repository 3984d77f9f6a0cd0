// swift-format-ignore-file
// Modules/WorkTracking/README.md's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them line by line).
// Compiled, not called: they write work.sqlite in the current directory (WorkTrackingTests run the same calls).
import Foundation
import Documents
import SuiteCore
import WorkTracking

func workTrackingReadme() async throws {
    let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "work.sqlite"), bus: EventBus())
    let tracker = WorkTracker(store: store, defaults: try WorkSettings(timeZone: "Europe/Berlin"))
    try await tracker.perform(.start, user: "ana")
    try await tracker.perform(.pause, user: "ana")  // a break: never counted as work
    try await tracker.perform(.resume, user: "ana")
    let week = try await tracker.week(user: "ana")  // workedSeconds, breakSeconds, plannedSeconds, overtimeSeconds, days
    print(week.workedSeconds, week.overtimeSeconds)
    await store.close()
}

func workTrackingReadmeCorrections(tracker: WorkTracker) async throws {
    let start = try WorkTime.parse("08:00", on: WorkDate("2026-11-23"), in: TimeZone(identifier: "Europe/Berlin")!)
    try await tracker.edit(
        user: "ana", date: try WorkDate("2026-11-23"), WorkEdit(start: start, end: start.addingTimeInterval(8 * 3600)))
    try await tracker.undo(user: "ana")  // the edit is taken back
    do {
        try await tracker.perform(.resume, user: "ana")
    } catch let error as WorkError {
        print(error.message)  // cannot resume: the day 2026-11-24 is working (hint: from working: break, end)
    }
}
