import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Testing
import WorkTracking

/// A tracker on a real SQLite store in a temporary directory, with a manual clock.
struct WorkFixture {
    let store: DocumentStore
    let clock: ManualWallClock
    let tracker: WorkTracker
    let zone: TimeZone
    let bus: EventBus

    /// A fixture in `zone`, the clock at `now` (ISO 8601, read in the zone when it has no offset).
    static func make(
        zone name: String = "Europe/Berlin", now: String = "2026-11-24T07:00", firstWeekday: Int = 2
    ) async throws -> WorkFixture {
        let directory = try TestSupport.makeTemporaryDirectory("work")
        let zone = try #require(TimeZone(identifier: name))
        let clock = ManualWallClock(try WorkTime.parse(now, on: WorkDate("2026-01-01"), in: zone))
        let bus = EventBus(clock: clock)
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("docs.sqlite").path), bus: bus,
            clock: clock)
        let settings = try WorkSettings(timeZone: name, firstWeekday: firstWeekday)
        let tracker = WorkTracker(store: store, defaults: settings, source: "test", clock: clock)
        return WorkFixture(store: store, clock: clock, tracker: tracker, zone: zone, bus: bus)
    }

    /// `text` as a time: `HH:MM` on `date` (the clock's date by default), or ISO 8601.
    func time(_ text: String, on date: String? = nil) throws -> Date {
        try WorkTime.parse(text, on: date.map { try WorkDate($0) } ?? WorkDate(clock.now, in: zone), in: zone)
    }

    /// Moves the clock to `text` and performs `action` at that time.
    @discardableResult
    func at(_ text: String, _ action: WorkAction, user: String = "ana") async throws -> WorkDay {
        let time = try time(text)
        if time > clock.now { clock.set(time) }
        return try await tracker.perform(action, user: user, at: time)
    }

    func close() async { await store.close() }
}
