import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport

@testable import Analytics

/// A manager on a fresh queue file with an in-memory engine and a manual clock.
struct Harness {
    let engine: InMemoryAnalyticsEngine
    let queue: AnalyticsQueue
    let manager: AnalyticsManager
    let clock: ManualWallClock

    init(
        configuration: AnalyticsConfiguration = AnalyticsConfiguration(),
        engine: InMemoryAnalyticsEngine = InMemoryAnalyticsEngine(),
        queuePath: String = TestSupport.temporaryFile("queue.sqlite"), clock: ManualWallClock = ManualWallClock()
    ) throws {
        self.engine = engine
        self.clock = clock
        queue = try AnalyticsQueue(path: queuePath)
        manager = try AnalyticsManager(engine: engine, queue: queue, configuration: configuration, clock: clock)
    }
}

/// A retry policy without jitter: 1 s, 2 s, 4 s …
let fixedRetry = AnalyticsRetryPolicy(initialDelay: 1, maximumDelay: 60, maximumAttempts: 3, random: { 1 })
