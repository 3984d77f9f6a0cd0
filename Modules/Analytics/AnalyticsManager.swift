import Foundation
public import Logging
public import SuiteCore
import Synchronization

/// The analytics API an app calls: `log` is one line, returns at once and never waits on I/O.
///
/// ```swift
/// let queue = try AnalyticsQueue(path: dataDirectory + "/analytics-queue.sqlite")
/// let analytics = try AnalyticsManager(
///     engine: try SQLiteAnalyticsEngine(path: dataDirectory + "/analytics.sqlite"), queue: queue,
///     configuration: AnalyticsConfiguration(context: ["app_version": "2.4.1"]), logger: logger)
/// analytics.log(AppEvent.messageDeleted(index: 3, read: true))
/// try await analytics.flush()   // on disk and delivered (or failed, and queued for a retry)
/// ```
///
/// `log` captures the event's name, parameters and time into a bounded in-memory buffer. A background writer then
/// applies the privacy policy, validates (an invalid event is counted in ``statistics`` and reported to
/// ``AnalyticsConfiguration/onRejection``, never sent), samples, gives the record a UUID v7, persists it in the
/// ``AnalyticsQueue`` and hands it to the engine; a record leaves the queue only once the engine confirms it.
/// Pass the manager to what needs it; there is no shared instance.
///
/// What an app expects of an analytics SDK is here too, kept in the queue file between launches: consent
/// (``optOut()``, ``optIn()``, ``setConsent(_:)``), sessions that rotate after inactivity (``AnalyticsSessionPolicy``),
/// a user (``identify(userID:traits:)``, ``reset()``) and an anonymous id on every record, and the app and device
/// context (``AnalyticsAutomaticContext``).
public final class AnalyticsManager: Sendable {
    /// The configuration the manager was created with.
    public let configuration: AnalyticsConfiguration
    /// The persisted queue.
    public let queue: AnalyticsQueue
    /// The context on every record: the automatic context (unless switched off) merged with the configured one.
    public let context: [String: String]
    let clock: any WallClock
    let inbox: AnalyticsInbox
    private let writer: Task<Void, Never>
    private let ticker: Task<Void, Never>

    /// Creates a manager delivering to `engine` through `queue`, and starts its background writer (which first
    /// delivers what an earlier manager left in the queue).
    ///
    /// Reads what the queue file keeps between launches: the consent (an earlier ``optOut()`` holds), the identity
    /// (the anonymous id is made and stored on first use) and the session (continued if its last event is within the
    /// session timeout). Gathers the automatic context once, unless the configuration switches it off or supplies it.
    ///
    /// - Throws: ``AnalyticsError`` `.invalidConfiguration` for an out-of-range configuration; `.storage` when the
    ///   stored state cannot be read.
    public init(
        engine: any AnalyticsEngine, queue: AnalyticsQueue, configuration: AnalyticsConfiguration = .init(),
        clock: any WallClock = SystemWallClock(), logger: Logger = Logger(label: "suite.analytics")
    ) throws(AnalyticsError) {
        try configuration.validate()
        let stored = try queue.loadState()
        let identity = stored.identity ?? AnalyticsIdentity(anonymousID: UUID())
        let inbox = AnalyticsInbox(
            capacity: configuration.bufferCapacity,
            collecting: stored.consent.allowsCollection(byDefault: configuration.collectionEnabled),
            consent: stored.consent, identity: identity, identityIsNew: stored.identity == nil)
        if let session = stored.session,
            clock.now.timeIntervalSince(session.lastActivityAt) <= configuration.sessions.timeoutSeconds
        {
            inbox.state.withLock { $0.sessionID = session.id }  // continued by the next event
        }
        var context: [String: String] = [:]
        if configuration.collectsAutomaticContext {
            context = (configuration.automaticContext ?? .gather()).values
        }
        context.merge(configuration.context) { _, configured in configured }
        let pipeline = AnalyticsPipeline(
            inbox: inbox, queue: queue, engine: engine, configuration: configuration, context: context,
            session: stored.session, clock: clock, logger: logger)
        self.configuration = configuration
        self.queue = queue
        self.context = context
        self.clock = clock
        self.inbox = inbox
        writer = Task { await pipeline.run() }
        let interval = configuration.deliveryInterval
        ticker = Task { [weak inbox] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                inbox?.wake()
            }
        }
        inbox.wake()
    }

    deinit {
        ticker.cancel()
        inbox.finish()
    }

    /// Records `event`: returns at once; the event is processed, persisted and delivered in the background.
    ///
    /// Dropped (and counted in ``statistics``) while collection is off, after ``shutdown()``, or when the in-memory
    /// buffer (``AnalyticsConfiguration/bufferCapacity``) is full.
    public func log(_ event: some AnalyticsEvent) {
        inbox.offer(PendingEvent(name: event.name, parameters: event.parameters, timestamp: clock.now))
    }

    /// Returns once every event logged before the call is in the queue on disk (a crash of the process from then on
    /// loses none of them), without waiting for a delivery.
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the queue cannot be written; `.shutdown` after ``shutdown()``.
    public func persist() async throws {
        try await send { .persist($0) }
    }

    /// Returns once every event logged before the call is persisted and every due record has had a delivery attempt
    /// (delivered, rejected, or queued for a retry with its error).
    ///
    /// - Throws: ``AnalyticsError`` `.storage` when the queue cannot be written; `.shutdown` after ``shutdown()``.
    public func flush() async throws {
        try await send { .flush($0) }
    }

    /// What the manager did with the events logged to it so far.
    public var statistics: AnalyticsStatistics { inbox.state.withLock { $0.statistics } }

    /// The persisted queue's counts now.
    public func queueStatus() async throws -> AnalyticsQueueStatus {
        try await queue.status(at: clock.now)
    }

    /// Flushes and stops the background writer; later `log` calls are dropped and counted.
    public func shutdown() async throws {
        ticker.cancel()
        try await send { .stop($0) }
    }

    func send(_ make: (CheckedContinuation<Void, any Error>) -> InboxCommand) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            if !inbox.send(make(continuation)) {
                continuation.resume(throwing: AnalyticsError(.shutdown, "the analytics manager was shut down"))
            }
        }
    }
}
