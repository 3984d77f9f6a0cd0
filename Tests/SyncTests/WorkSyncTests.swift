import Documents
import Foundation
import SuiteCore
import SuiteTestSupport
import Sync
import Synchronization
import Testing
import WorkTracking

/// Work tracking on replicas: no sync code of its own, and a transition lost to another device is a `work.conflict`.
@Suite struct WorkSyncTests {
    @Test func twoDevicesStartingTheSameDayOfflineResolveByServerOrderAndTheLoserHearsOfIt() async throws {
        let world = try SyncTests.World()
        let busA = EventBus()
        let lost = Mutex<[WorkConflict.Payload]>([])
        let subscription = busA.subscribe(to: WorkConflict.self) { event in lost.withLock { $0.append(event.payload) } }
        let (a, linkA) = try await world.replica("phone", bus: busA)
        let (b, linkB) = try await world.replica("laptop", bus: EventBus())
        let utc = try WorkSettings(timeZone: "UTC")
        let phone = WorkTracker(store: a.store, defaults: utc, source: "phone")
        let laptop = WorkTracker(store: b.store, defaults: utc, source: "laptop")
        linkA.isOnline = false
        linkB.isOnline = false
        let day = try WorkDate("2026-11-24")
        let eight = try WorkTime.parse("08:00", on: day, in: TimeZone(secondsFromGMT: 0) ?? .current)
        try await phone.perform(.start, user: "ana", at: eight)
        try await laptop.perform(.start, user: "ana", at: eight.addingTimeInterval(300))
        try await laptop.perform(.pause, user: "ana", at: eight.addingTimeInterval(3600))
        linkA.isOnline = true
        linkB.isOnline = true
        try await a.sync()  // the phone's start reaches the server first
        try await b.sync()  // the laptop's later changes win
        try await a.sync()
        let winner = try #require(try await laptop.day(user: "ana", date: day))
        #expect(winner.status == .onBreak && winner.history.last?.source == "laptop")
        let phoneDay = try #require(try await phone.day(user: "ana", date: day))
        #expect(phoneDay == winner)
        let conflict = try #require(lost.withLock { $0.first { $0.date == "2026-11-24" } })
        #expect(conflict.uid == "ana" && conflict.ours?.source == "phone" && conflict.ours?.action == "start")
        #expect(conflict.theirs?.source == "laptop" && conflict.theirs?.action == "break" && conflict.status == "break")
        subscription.cancel()
    }
}
