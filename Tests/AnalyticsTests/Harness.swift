import AnalyticsTestSupport
import Foundation
import SuiteCore
import SuiteTestSupport

@testable import Analytics

/// A manager on a fresh queue file with an in-memory engine and a manual clock.
///
/// Unless `appFeatures` is on, session events and the automatic context are switched off, so a test sees exactly the
/// events it logged with the context it configured.
struct Harness {
    let engine: InMemoryAnalyticsEngine
    let queue: AnalyticsQueue
    let manager: AnalyticsManager
    let clock: ManualWallClock

    init(
        configuration: AnalyticsConfiguration = AnalyticsConfiguration(),
        engine: InMemoryAnalyticsEngine = InMemoryAnalyticsEngine(),
        queuePath: String = TestSupport.temporaryFile("queue.sqlite"), clock: ManualWallClock = ManualWallClock(),
        appFeatures: Bool = false
    ) throws {
        self.engine = engine
        self.clock = clock
        queue = try AnalyticsQueue(path: queuePath)
        let configuration = appFeatures ? configuration : configuration.withoutAppFeatures
        manager = try AnalyticsManager(engine: engine, queue: queue, configuration: configuration, clock: clock)
    }
}

/// A retry policy without jitter: 1 s, 2 s, 4 s …
let fixedRetry = AnalyticsRetryPolicy(initialDelay: 1, maximumDelay: 60, maximumAttempts: 3, random: { 1 })

extension AnalyticsConfiguration {
    /// This configuration without session events or automatic context.
    var withoutAppFeatures: AnalyticsConfiguration {
        var configuration = self
        configuration.sessions.recordsEvents = false
        configuration.collectsAutomaticContext = false
        return configuration
    }
}
