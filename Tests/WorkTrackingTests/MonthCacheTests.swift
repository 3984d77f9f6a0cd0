import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing
import WorkTracking

/// The month cache and the team view.
@Suite struct MonthCacheTests {
    @Test func theMonthCacheStaysEqualToAFreshReadAfterRandomChanges() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-30T20:00")
        let month = try WorkMonth("2026-11")
        // A second tracker on the same store: its writes reach the first one's cache through the bus.
        let other = WorkTracker(
            store: fixture.store, defaults: fixture.tracker.defaults, source: "other", clock: fixture.clock)
        var random = SplitMix64(seed: 7)
        _ = try await fixture.tracker.monthDays(user: "ana", month: month)
        var undoable = 0
        for step in 0..<60 {
            let date = month.first.adding(days: Int(random.next() % 30))
            let hour = 6 + Int(random.next() % 4)
            let writer = random.next() % 3 == 0 ? other : fixture.tracker
            let choice = random.next() % 4
            do {
                if choice == 3, undoable > 0 {
                    _ = try await writer.undo(user: "ana")
                    undoable -= 1
                } else {
                    let start = try fixture.time(String(format: "%02d:%02d", hour, step % 60), on: date.description)
                    let end = start.addingTimeInterval(Double(3600 * (4 + Int(random.next() % 5))))
                    let breaks =
                        choice == 1
                        ? [WorkInterval(start: start.addingTimeInterval(3600), end: start.addingTimeInterval(5400))]
                        : []
                    try await writer.edit(user: "ana", date: date, WorkEdit(start: start, end: end, breaks: breaks))
                    undoable += 1
                }
            } catch let error as WorkError where error.code == .overlap || error.code == .notFound {
                continue
            }
            let cached = try await fixture.tracker.monthDays(user: "ana", month: month)
            let fresh = try await fixture.tracker.readDays(user: "ana", from: month.first, through: month.last)
            #expect(cached == Dictionary(uniqueKeysWithValues: fresh.map { ($0.workDate, $0) }), "after step \(step)")
        }
        #expect(fixture.tracker.cache.count == 1)
        await fixture.close()
    }

    @Test func theTeamViewTotalsEveryUsersMonth() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-30T20:00")
        let month = try WorkMonth("2026-11")
        for (index, user) in ["bo", "ana", "cy"].enumerated() {
            for day in ["2026-11-02", "2026-11-03"] {
                try await fixture.tracker.edit(
                    user: user, date: WorkDate(day),
                    WorkEdit(
                        start: fixture.time("08:00", on: day),
                        end: fixture.time(String(format: "%02d:00", 12 + index), on: day),
                        breaks: [
                            WorkInterval(start: fixture.time("10:00", on: day), end: fixture.time("10:30", on: day))
                        ]))
            }
        }
        let team = try await fixture.tracker.team(month: month)
        #expect(team.map(\.uid) == ["ana", "bo", "cy"])
        #expect(team.map(\.workedSeconds) == [2 * (5 * 3600 - 1800), 2 * (4 * 3600 - 1800), 2 * (6 * 3600 - 1800)])
        #expect(team.allSatisfy { $0.breakSeconds == 3600 && $0.daysWorked == 2 })
        // Planned: 21 weekdays in November 2026, 8 hours each, up to today (the 30th).
        #expect(team.allSatisfy { $0.plannedSeconds == 21 * 8 * 3600 })
        for row in team {
            let report = try await fixture.tracker.month(user: row.uid, month)
            #expect(report.workedSeconds == row.workedSeconds && report.plannedSeconds == row.plannedSeconds)
        }
        await fixture.close()
    }

    @Test func aSummaryWrittenBySomethingElseIsAStorageErrorNamingIt() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-30T20:00")
        try await fixture.tracker.edit(
            user: "ana", date: WorkDate("2026-11-02"),
            WorkEdit(start: fixture.time("08:00", on: "2026-11-02"), end: fixture.time("12:00", on: "2026-11-02")))
        try await fixture.store.document("workInfo/zed/workMonths/2026-11").setData(["month": "2026-11", "days": 3])
        do {
            _ = try await fixture.tracker.team(month: WorkMonth("2026-11"))
            Issue.record("a malformed summary was read")
        } catch let error as WorkError {
            #expect(error.code == .storage)
            #expect(error.message == "workInfo/zed/workMonths/2026-11 is not a work month summary")
        }
        await fixture.close()
    }
}
