import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs background work when the machine is idle: the Linux analogue of iOS BackgroundTasks that seed 001 uses for
/// reconciliation. "Idle" is a 1-minute load average (`getloadavg`, on Linux and Apple platforms) under ``threshold``.
///
/// ```swift
/// let scheduler = IdleScheduler(threshold: 0.5, interval: .seconds(60))
/// try await scheduler.run(every: .seconds(3600)) {
///     _ = try await reconciler.reconcileAll(mode: .cheap, fix: true)
/// }
/// ```
public struct IdleScheduler: Sendable {
    /// Work runs only while the load average is below this.
    public var threshold: Double
    /// How long to wait between two looks at the load.
    public var interval: Duration
    /// Reads the current 1-minute load average (injectable for tests).
    public var loadReader: @Sendable () throws -> Double

    /// A scheduler reading the system's load average unless another `loadReader` is given.
    public init(
        threshold: Double = 1.0, interval: Duration = .seconds(30),
        loadReader: @escaping @Sendable () throws -> Double = IdleScheduler.systemLoadAverage
    ) {
        self.threshold = threshold
        self.interval = interval
        self.loadReader = loadReader
    }

    /// The 1-minute load average from `getloadavg(3)` (which reads `/proc/loadavg` on Linux, the kernel on Apple
    /// platforms).
    ///
    /// - Throws: ``StorageError`` `.io` when the system does not give a load average.
    @Sendable public static func systemLoadAverage() throws -> Double {
        var load = 0.0
        guard getloadavg(&load, 1) == 1 else {
            throw StorageError(
                .io, "cannot read the system's load average (getloadavg)",
                hint: "pass a loadReader to IdleScheduler on systems without a load average")
        }
        return load
    }

    /// Whether the machine is idle now.
    public func isIdle() throws -> Bool { try loadReader() < threshold }

    /// Waits until the machine is idle (looking every ``interval``), then runs `job` and returns its result; `nil`
    /// when `maxWait` passed first.
    ///
    /// - Throws: what `job` throws, the load reader's error, or `CancellationError`.
    public func runWhenIdle<T: Sendable>(
        maxWait: Duration? = nil, _ job: @Sendable () async throws -> T
    ) async throws -> T? {
        let clock = ContinuousClock()
        let deadline = maxWait.map { clock.now + $0 }
        while try !isIdle() {
            if let deadline, clock.now >= deadline { return nil }
            try await Task.sleep(for: interval)
        }
        return try await job()
    }

    /// Runs `job` whenever the machine is idle, at most once per `period`, until the task is cancelled.
    public func run(every period: Duration, _ job: @Sendable () async throws -> Void) async throws {
        while !Task.isCancelled {
            _ = try await runWhenIdle(job)
            try await Task.sleep(for: period)
        }
    }
}
