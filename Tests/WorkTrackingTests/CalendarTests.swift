import Foundation
import SuiteCore
import Testing
import WorkTracking

/// Dates, times, midnight, daylight-saving changes and week boundaries.
@Suite struct CalendarTests {
    @Test func datesRoundTripThroughDayNumbersAndKnowTheirWeekday() throws {
        for days in stride(from: -719_000, through: 2_000_000, by: 997) {
            let date = WorkDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(try WorkDate(date.description) == date)
        }
        #expect(try WorkDate("2026-11-24").weekday == 3)  // a Tuesday
        #expect(try WorkDate("2024-02-29").adding(days: 1) == WorkDate("2024-03-01"))
        for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "24.11.2026", ""] {
            #expect(throws: WorkError.self) { try WorkDate(bad) }
        }
        #expect(try WorkMonth("2026-02").last == WorkDate("2026-02-28"))
        #expect(try WorkMonth("2026-12").next == WorkMonth("2027-01"))
    }

    @Test func timesParseAsClockTimesOrISO8601AndNonexistentLocalTimesAreRefused() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let day = try WorkDate("2026-11-24")
        let eight = try WorkTime.parse("08:00", on: day, in: berlin)
        #expect(WorkTime.iso(eight, in: berlin) == "2026-11-24T08:00:00+01:00")
        #expect(try WorkTime.parse("2026-11-24T08:00", on: day, in: berlin) == eight)
        #expect(try WorkTime.parse("2026-11-24T07:00Z", on: day, in: berlin) == eight)
        #expect(try WorkTime.parse("2026-11-24T09:00+02:00", on: day, in: berlin) == eight)
        // 02:30 does not exist in Berlin on 2026-03-29 (clocks jump from 02:00 to 03:00).
        do {
            _ = try WorkTime.parse("02:30", on: WorkDate("2026-03-29"), in: berlin)
            Issue.record("a skipped local time was accepted")
        } catch let error as WorkError {
            #expect(error.message.contains("does not exist"))
        }
        for bad in ["8", "25:00", "08:60", "tomorrow", "2026-11-24T08:00+1"] {
            #expect(throws: WorkError.self) { try WorkTime.parse(bad, on: day, in: berlin) }
        }
    }

    @Test func workPastMidnightStaysOnItsStartDayUnlessTheReportSplitsIt() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T21:00")
        try await fixture.at("22:00", .start)
        fixture.clock.set(try fixture.time("2026-11-25T03:00"))
        try await fixture.tracker.perform(.end, user: "ana", at: fixture.time("2026-11-25T02:00"))
        let from = try WorkDate("2026-11-24")
        let through = try WorkDate("2026-11-25")
        let kept = try await fixture.tracker.report(user: "ana", from: from, through: through)
        #expect(kept.days.map(\.workedSeconds) == [4 * 3600, 0])
        let split = try await fixture.tracker.report(user: "ana", from: from, through: through, splitAtMidnight: true)
        #expect(split.days.map(\.workedSeconds) == [2 * 3600, 2 * 3600])
        #expect(split.workedSeconds == kept.workedSeconds)
        await fixture.close()
    }

    @Test(arguments: [("2026-03-29", 23), ("2026-10-25", 25), ("2026-11-24", 24)])
    func daylightSavingDaysHaveTheirOwnLength(date: String, hours: Int) async throws {
        let fixture = try await WorkFixture.make(now: "\(date)T00:10")
        let day = try WorkDate(date)
        #expect(day.length(in: fixture.zone) == Double(hours * 3600))
        try await fixture.at("00:30", .start)
        fixture.clock.set(try fixture.time("23:45", on: date))
        let ended = try await fixture.tracker.perform(.end, user: "ana", at: fixture.time("23:30", on: date))
        #expect(ended.workedSeconds == (hours - 1) * 3600)
        let report = try await fixture.tracker.report(user: "ana", from: day, through: day, splitAtMidnight: true)
        #expect(report.workedSeconds == (hours - 1) * 3600)
        await fixture.close()
    }

    @Test(arguments: [(2, "2026-11-23", "2026-11-29"), (1, "2026-11-29", "2026-12-05")])
    func weeksStartOnTheConfiguredWeekday(firstWeekday: Int, start: String, end: String) async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-29T07:00", firstWeekday: firstWeekday)
        // A first record weeks before (days before it would plan nothing), then Sunday 2026-11-29.
        try await fixture.tracker.edit(
            user: "ana", date: WorkDate("2026-11-02"),
            WorkEdit(start: fixture.time("08:00", on: "2026-11-02"), end: fixture.time("09:00", on: "2026-11-02")))
        try await fixture.at("09:00", .start)
        try await fixture.at("12:00", .end)
        let week = try await fixture.tracker.week(user: "ana")
        #expect(week.from == (try WorkDate(start)))
        #expect(week.through == (try WorkDate(end)))
        #expect(week.days.count == 7)
        #expect(week.workedSeconds == 3 * 3600)
        // Planned: Monday–Friday 8 h for the week's dates up to today (the Sunday).
        let today = try WorkDate("2026-11-29")
        let plannedDays = week.days.filter { $0.date <= today && (2...6).contains($0.date.weekday) }
        #expect(week.plannedSeconds == plannedDays.count * 8 * 3600)
        #expect(week.overtimeSeconds == week.workedSeconds - week.plannedSeconds)
        await fixture.close()
    }

    @Test("a new user's month plans nothing before their first recorded day: those days are not missed work")
    func daysBeforeTheFirstRecordAreNotMissed() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T07:00")
        let month = try WorkMonth("2026-11")
        let empty = try await fixture.tracker.month(user: "ana", month)
        #expect(empty.plannedSeconds == 0 && empty.overtimeSeconds == 0, "nothing recorded yet, nothing missed")
        try await fixture.at("08:00", .start)  // Tuesday 2026-11-24, the first record
        fixture.clock.set(try fixture.time("16:00"))
        try await fixture.tracker.perform(.end, user: "ana", at: fixture.time("16:00"))
        let report = try await fixture.tracker.month(user: "ana", month)
        let first = try WorkDate("2026-11-24")
        #expect(report.days.filter { $0.date < first }.allSatisfy { $0.plannedSeconds == 0 && $0.overtimeSeconds == 0 })
        #expect(report.plannedSeconds == 8 * 3600)
        #expect(report.overtimeSeconds == report.workedSeconds - 8 * 3600)
        // The team view counts the same.
        let team = try await fixture.tracker.team(month: month)
        #expect(team.map(\.plannedSeconds) == [report.plannedSeconds])
        // A later month plans every weekday up to today: the first record is behind it.
        fixture.clock.set(try fixture.time("12:00", on: "2026-12-03"))
        let december = try await fixture.tracker.month(user: "ana", WorkMonth("2026-12"))
        #expect(december.plannedSeconds == 3 * 8 * 3600)
        await fixture.close()
    }
}
