import Foundation
import SuiteCore
import Synchronization
import Testing
import WorkTracking

/// The status flow: prepare → working ⇄ break → ended, every pair allowed or refused.
@Suite struct StatusFlowTests {
    /// The flow as the issue states it, written out here rather than read from the module's table.
    static let allowed: Set<String> = [
        "prepare start", "working break", "working end", "break resume", "break end", "ended reopen",
    ]
    static let targets: [WorkAction: WorkStatus] = [
        .start: .working, .pause: .onBreak, .resume: .working, .end: .ended, .reopen: .working,
    ]

    /// Brings a fresh user's day to `status` through the flow.
    static func reach(_ status: WorkStatus, _ fixture: WorkFixture) async throws {
        switch status {
        case .prepare: return
        case .working: try await fixture.at("08:00", .start)
        case .onBreak:
            try await fixture.at("08:00", .start)
            try await fixture.at("10:00", .pause)
        case .ended:
            try await fixture.at("08:00", .start)
            try await fixture.at("16:00", .end)
        }
    }

    @Test(arguments: WorkStatus.allCases, WorkAction.allCases)
    func everyPairIsAllowedOrRefusedWithTheStatusAndWhatIsAllowed(from: WorkStatus, action: WorkAction) async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T07:00")
        try await Self.reach(from, fixture)
        let isAllowed = Self.allowed.contains("\(from.rawValue) \(action.rawValue)")
        do {
            let day = try await fixture.at("18:00", action)
            #expect(isAllowed, "\(action) from \(from) was accepted")
            #expect(day.status == Self.targets[action])
            #expect(day.history.last?.from == from && day.history.last?.action == action.rawValue)
        } catch let error as WorkError {
            #expect(!isAllowed, "\(action) from \(from) was refused: \(error)")
            #expect(error.code == .invalidTransition)
            #expect(error.message.contains("is \(from.rawValue)"))
            let allowedFrom = Self.allowed.filter { $0.hasPrefix("\(from.rawValue) ") }.map {
                $0.split(separator: " ")[1]
            }
            for name in allowedFrom { #expect(error.hint?.contains(String(name)) == true, "\(error.hint ?? "")") }
        }
        await fixture.close()
    }

    @Test func breaksNeverCountAsWorkAndEndingOnABreakClosesIt() async throws {
        let fixture = try await WorkFixture.make()
        try await fixture.at("08:00", .start)
        try await fixture.at("12:00", .pause)
        try await fixture.at("12:30", .resume)
        try await fixture.at("15:00", .pause)
        let day = try await fixture.at("15:20", .end)
        #expect(day.status == .ended)
        #expect(day.breaks.allSatisfy { $0.end != nil })
        #expect(day.workedSeconds == 6 * 3600 + 30 * 60)  // 08:00–15:00 less 30 minutes
        #expect(day.breakSeconds == 50 * 60)
        await fixture.close()
    }

    @Test func reopeningTurnsTheTimeSinceTheEndIntoABreak() async throws {
        let fixture = try await WorkFixture.make()
        try await fixture.at("08:00", .start)
        try await fixture.at("16:00", .end)
        try await fixture.at("18:00", .reopen)
        let day = try await fixture.at("19:00", .end)
        #expect(day.workedSeconds == 9 * 3600)
        #expect(day.breakSeconds == 2 * 3600)
        #expect(day.history.map(\.action) == ["start", "end", "reopen", "end"])
        await fixture.close()
    }

    @Test func timesInTheFutureOrBeforeTheLastChangeAreRefused() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T09:00")
        await #expect(throws: WorkError.self) {
            try await fixture.tracker.perform(.start, user: "ana", at: fixture.time("10:00"))
        }
        try await fixture.tracker.perform(.start, user: "ana", at: fixture.time("08:00"))
        do {
            try await fixture.tracker.perform(.pause, user: "ana", at: fixture.time("07:30"))
            Issue.record("a break before the start was accepted")
        } catch let error as WorkError {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("before the day's last change at 2026-11-24 08:00"))
        }
        await fixture.close()
    }

    @Test func anOpenDayMustEndBeforeTheNextStarts() async throws {
        let fixture = try await WorkFixture.make(now: "2026-11-24T08:00")
        try await fixture.at("08:00", .start)
        fixture.clock.set(try fixture.time("2026-11-25T08:00"))
        do {
            try await fixture.tracker.perform(.start, user: "ana")
            Issue.record("a second open day was accepted")
        } catch let error as WorkError {
            #expect(error.code == .invalidTransition)
            #expect(error.message == "cannot start: the day 2026-11-24 is still working")
        }
        // `end` applies to the open day, yesterday's.
        let ended = try await fixture.tracker.perform(.end, user: "ana", at: fixture.time("2026-11-24T17:00"))
        #expect(ended.workDate == (try WorkDate("2026-11-24")))
        await fixture.close()
    }

    @Test func statusChangesArePublishedOnTheBus() async throws {
        let fixture = try await WorkFixture.make()
        let seen = RecordedEvents()
        let subscription = fixture.bus.subscribe(to: WorkStatusChanged.self) {
            seen.add("\($0.payload.from)→\($0.payload.to)")
        }
        let days = fixture.bus.subscribe(to: WorkDayChanged.self) { seen.add("day \($0.payload.date)") }
        try await fixture.at("08:00", .start)
        try await fixture.at("12:00", .pause)
        #expect(seen.all == ["day 2026-11-24", "prepare→working", "day 2026-11-24", "working→break"])
        subscription.cancel()
        days.cancel()
        await fixture.close()
    }
}

/// Events collected from bus handlers.
final class RecordedEvents: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ item: String) { items.withLock { $0.append(item) } }
    var all: [String] { items.withLock { $0 } }
}
