import Foundation
import SuiteCore
import Testing
import WorkTracking

/// Timewarrior, Watson and JSON in and out.
@Suite struct InteropTests {
    @Test func watsonFramesBecomeDaysWithBreaksAndUntrackedGaps() async throws {
        let fixture = try await WorkFixture.make(zone: "UTC", now: "2026-11-30T12:00")
        let frames = """
            [[1793606400, 1793620800, "suite", "a1", ["dev"], 1793620800],
             [1793620800, 1793622600, "break", "a2", [], 1793622600],
             [1793622600, 1793635200, "suite", "a3", ["review"], 1793635200],
             [1793638800, 1793642400, "suite", "a4", [], 1793642400]]
            """
        // 2026-11-02 08:00–12:00 work, 12:00–12:30 break, 12:30–16:00 work, 16:00–17:00 gap, 17:00–18:00 work.
        let days = try await fixture.tracker.importDays(Data(frames.utf8), format: .watson, user: "ana")
        let day = try #require(days.first)
        let expected = try WorkDate("2026-11-02")
        #expect(days.count == 1 && day.workDate == expected && day.status == .ended)
        #expect(day.workedSeconds == (4 * 3600 + 3 * 3600 + 1800 + 3600))
        #expect(day.breakSeconds == 1800)
        #expect(day.breaks.map(\.kind) == [.breakTime, .untracked])
        #expect(day.tags == ["suite", "dev", "review"])
        for bad in ["{}", "[[1, 0, \"x\"]]", "not json"] {
            await #expect(throws: WorkError.self) {
                try await fixture.tracker.importDays(Data(bad.utf8), format: .watson, user: "bo")
            }
        }
        await fixture.close()
    }

    @Test func timewarriorExportReadsBackWithGapsAsBreaks() async throws {
        let fixture = try await WorkFixture.make(zone: "UTC", now: "2026-11-24T18:00")
        try await fixture.at("08:00", .start)
        try await fixture.at("12:00", .pause)
        try await fixture.at("12:30", .resume)
        let original = try await fixture.at("17:00", .end)
        let day = try WorkDate("2026-11-24")
        let exported = try await fixture.tracker.export(user: "ana", from: day, through: day, format: .timewarrior)
        let text = String(decoding: exported, as: UTF8.self)
        #expect(text.contains("\"start\" : \"20261124T080000Z\"") && text.contains("\"end\" : \"20261124T120000Z\""))
        let imported = try await fixture.tracker.importDays(
            exported, format: .timewarrior, user: "bo", gapsAsBreaks: true)
        #expect(imported.first?.workedSeconds == original.workedSeconds)
        #expect(imported.first?.breakSeconds == original.breakSeconds)
        let overlapping = """
            [{"start":"20261125T080000Z","end":"20261125T120000Z"},{"start":"20261125T110000Z","end":"20261125T130000Z"}]
            """
        do {
            try await fixture.tracker.importDays(Data(overlapping.utf8), format: .timewarrior, user: "cy")
            Issue.record("overlapping intervals were imported")
        } catch let error as WorkError {
            #expect(error.code == .overlap)
        }
        await fixture.close()
    }
}
