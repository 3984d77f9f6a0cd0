import Foundation
import SuiteCore
import Testing
import WorkTracking

/// Corrections: validation, overlaps named, history and undo.
@Suite struct EditTests {
    @Test func anEditIsValidatedAndAnOverlapNamesTheConflictingInterval() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T18:00")
        let day = try WorkDate("2026-11-24")
        try await fixture.tracker.edit(
            user: "ana", date: day, WorkEdit(start: fixture.time("08:00"), end: fixture.time("17:00")))
        func refused(_ edit: WorkEdit, _ code: WorkError.Code, _ text: String) async throws {
            do {
                try await fixture.tracker.edit(user: "ana", date: day, edit)
                Issue.record("accepted: \(edit)")
            } catch let error as WorkError {
                #expect(error.code == code)
                #expect(error.message.contains(text), "\(error.message)")
            }
        }
        try await refused(
            WorkEdit(breaks: [
                WorkInterval(start: fixture.time("12:00"), end: fixture.time("12:45")),
                WorkInterval(start: fixture.time("12:30"), end: fixture.time("13:00")),
            ]), .overlap, "the break 12:30–13:00 overlaps the break 12:00–12:45")
        try await refused(
            WorkEdit(breaks: [WorkInterval(start: fixture.time("07:30"), end: fixture.time("08:15"))]), .overlap,
            "the break 07:30–08:15 overlaps the edge of the work interval")
        try await refused(WorkEdit(end: fixture.time("07:00")), .invalidInput, "is not after the start")
        try await refused(
            WorkEdit(breaks: [WorkInterval(start: fixture.time("12:00"), end: fixture.time("11:00"))]), .invalidInput,
            "ends before it starts")
        // The next day may not start before this one ends.
        let next = try WorkDate("2026-11-25")
        try await fixture.tracker.edit(
            user: "ana", date: next,
            WorkEdit(start: fixture.time("2026-11-25T00:00"), end: fixture.time("2026-11-25T06:00")))
        try await refused(
            WorkEdit(end: fixture.time("2026-11-25T01:00")), .overlap, "2026-11-25's work 2026-11-25 00:00–06:00")
        // Nothing refused was written.
        let stored = try #require(try await fixture.tracker.day(user: "ana", date: day))
        #expect(stored.breaks.isEmpty && stored.workedSeconds == 9 * 3600)
        await fixture.close()
    }

    @Test func editsAreRecordedAndUndoTakesThemBackInOrder() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T18:00")
        let day = try WorkDate("2026-11-24")
        try await fixture.at("08:00", .start)
        try await fixture.at("17:00", .end)
        try await fixture.tracker.edit(
            user: "ana", date: day,
            WorkEdit(
                start: fixture.time("07:30"),
                breaks: [WorkInterval(start: fixture.time("12:00"), end: fixture.time("12:30"))], note: "forgot"))
        var stored = try #require(try await fixture.tracker.day(user: "ana", date: day))
        #expect(stored.workedSeconds == 9 * 3600)
        #expect(stored.history.last?.action == "edit")
        #expect(stored.history.last?.note?.contains("start 07:30") == true)

        let undone = try await fixture.tracker.undo(user: "ana")
        #expect(undone.action == "edit")
        stored = try #require(try await fixture.tracker.day(user: "ana", date: day))
        let eight = try fixture.time("08:00")
        #expect(stored.workedSeconds == 9 * 3600 && stored.breaks.isEmpty && stored.actualStart == eight)
        #expect(stored.history.map(\.action) == ["start", "end", "edit", "undo"])

        #expect(try await fixture.tracker.undo(user: "ana").action == "end")
        #expect(try await fixture.tracker.day(user: "ana", date: day)?.status == .working)
        #expect(try await fixture.tracker.undo(user: "ana").action == "start")
        #expect(try await fixture.tracker.day(user: "ana", date: day) == nil)
        do {
            try await fixture.tracker.undo(user: "ana")
            Issue.record("undo with nothing left succeeded")
        } catch let error as WorkError {
            #expect(error.code == .notFound)
        }
        // With the start undone no day is open: a new start is allowed.
        try await fixture.at("18:00", .start)
        await fixture.close()
    }

    @Test func aMissingDayNeedsBothStartAndEndAndMustStartOnItsDate() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T18:00")
        let day = try WorkDate("2026-11-20")
        await #expect(throws: WorkError.self) {
            try await fixture.tracker.edit(
                user: "ana", date: day, WorkEdit(start: fixture.time("08:00", on: "2026-11-20")))
        }
        do {
            try await fixture.tracker.edit(
                user: "ana", date: day,
                WorkEdit(start: fixture.time("08:00", on: "2026-11-21"), end: fixture.time("09:00", on: "2026-11-21")))
            Issue.record("a day starting on another date was accepted")
        } catch let error as WorkError {
            #expect(error.message.contains("is not on 2026-11-20"))
        }
        let added = try await fixture.tracker.edit(
            user: "ana", date: day,
            WorkEdit(start: fixture.time("08:00", on: "2026-11-20"), end: fixture.time("16:00", on: "2026-11-20")))
        #expect(added.status == .ended && added.workedSeconds == 8 * 3600)
        await #expect(throws: WorkError.self) { try await fixture.tracker.edit(user: "ana", date: day, WorkEdit()) }
        await #expect(throws: WorkError.self) {
            try await fixture.tracker.edit(user: "a/b", date: day, WorkEdit(note: "x"))
        }
        await fixture.close()
    }
}
