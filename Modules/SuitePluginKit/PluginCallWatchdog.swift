import Foundation

/// The thread that enforces call deadlines: it sleeps until the earliest deadline it was asked to wake for, then
/// asks its owner to expire the calls whose deadline passed.
///
/// A dedicated thread, not a task: a timer on Swift's cooperative pool fires late — or never — when that pool is busy
/// (two threads on two cores), which is precisely when a plugin misbehaves. It sleeps in a condition variable, so it
/// costs nothing while no deadline is near, and a call pays for it only when its deadline is the new earliest.
final class PluginCallWatchdog: @unchecked Sendable {
    // @unchecked: `target` and `expire` are only touched under `condition`.
    private let condition = NSCondition()
    private var target: ContinuousClock.Instant?
    private var expire: (@Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?)?

    /// Makes sure the watchdog wakes no later than `deadline`; at each wake it calls `expire(now)`, which returns the
    /// next deadline to wake for, if any. The first call starts the thread (and fixes `expire`).
    func wake(
        by deadline: ContinuousClock.Instant,
        expire: @escaping @Sendable (ContinuousClock.Instant) -> ContinuousClock.Instant?
    ) {
        condition.lock()
        if target.map({ deadline < $0 }) ?? true { target = deadline }
        if self.expire == nil {
            self.expire = expire
            let thread = Thread { [self] in run() }
            thread.name = "suite.plugin-deadlines"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            guard let deadline = target else {
                condition.wait()
                continue
            }
            let now = ContinuousClock.now
            if now < deadline {
                let remaining = now.duration(to: deadline)
                let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
                continue
            }
            // Consume the target before expiring: a call registered meanwhile lowers it again, or is in `next`.
            target = nil
            let expire = self.expire
            condition.unlock()
            let next = expire?(now)
            condition.lock()
            if let next, target.map({ next < $0 }) ?? true { target = next }
        }
    }
}
