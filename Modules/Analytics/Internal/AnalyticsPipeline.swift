import Foundation
import Logging
import SuiteCore
import Synchronization

/// The background writer: takes what `log` buffered, turns it into records (privacy, validation, sampling, id) and
/// persists them in the queue; its ``AnalyticsDeliverer`` then delivers due records to the engine, in passes of its
/// own, so a slow or hanging engine never holds up persisting (``AnalyticsManager/persist()``). One writer and one
/// deliverer per manager, so one flusher.
actor AnalyticsPipeline {
    let inbox: AnalyticsInbox
    let queue: AnalyticsQueue
    let engine: any AnalyticsEngine
    let configuration: AnalyticsConfiguration
    /// The automatic context merged with the configured one: every record's context.
    let context: [String: String]
    let clock: any WallClock
    let logger: Logger
    /// Records processed but not yet persisted (the queue's write failed); retried first on the next cycle.
    private var unpersisted: [AnalyticsRecord] = []
    /// State changes not yet persisted, by key (the last change of a key wins); written with the next append.
    private var unsavedState: [AnalyticsStoredState.Key: AnalyticsStoredState.Change] = [:]
    private var sessions: AnalyticsSessionTracker
    private var generator = SystemRandomNumberGenerator()
    let deliverer = AnalyticsDeliverer()

    init(
        inbox: AnalyticsInbox, queue: AnalyticsQueue, engine: any AnalyticsEngine,
        configuration: AnalyticsConfiguration, context: [String: String], session: AnalyticsSession?,
        clock: any WallClock, logger: Logger
    ) {
        self.inbox = inbox
        self.queue = queue
        self.engine = engine
        self.configuration = configuration
        self.context = context
        self.clock = clock
        self.logger = logger
        sessions = AnalyticsSessionTracker(
            current: session, timeout: configuration.sessions.timeoutSeconds, firstID: configuration.sessionID)
    }

    /// Runs a cycle per wake-up until the manager stops, with the deliverer's passes beside it.
    func run() async {
        let delivering = Task { [deliverer] in await deliverer.run { await self.deliverDue() } }
        for await _ in inbox.signals {
            if await cycle() { break }
        }
        deliverer.finish()
        await delivering.value
    }

    /// Persists, carries out commands and delivers; true once a stop command was answered.
    private func cycle() async -> Bool {
        let (events, commands, identity) = inbox.take()
        if let identity { remember(try? AnalyticsStoredState.change(identity)) }
        unpersisted += records(for: events)
        let persistError = await persistPending()
        for command in commands {
            if case .persist(let continuation) = command {
                if let persistError { continuation.resume(throwing: persistError) } else { continuation.resume() }
            }
            if case .consent(let consent, let continuation) = command {
                do {
                    try await store(consent)
                    continuation.resume()
                } catch { continuation.resume(throwing: error) }
            }
        }
        var stopped = false
        for command in commands {
            switch command {
            case .consent, .persist: break
            case .flush(let continuation), .stop(let continuation):
                if case .stop = command { stopped = true }
                if let persistError {
                    continuation.resume(throwing: persistError)
                } else {
                    deliverer.request(continuation)  // answered after a delivery pass that starts from now
                }
            }
        }
        deliverer.request(nil)
        return stopped
    }

    /// Appends the unpersisted records with the unsaved state in one transaction; the error, if it failed.
    private func persistPending() async -> (any Error)? {
        guard !unpersisted.isEmpty || !unsavedState.isEmpty else { return nil }
        do {
            try await queue.append(unpersisted, state: Array(unsavedState.values))
            inbox.update { $0.persisted += unpersisted.count }
            unpersisted.removeAll()
            unsavedState.removeAll()
            return nil
        } catch {
            logger.error("cannot persist analytics events", metadata: ["error": "\(error)"])
            return error
        }
    }

    /// Stores `consent`; a denial also drops what is unpersisted, purges the queue and forgets the session.
    private func store(_ consent: AnalyticsConsent) async throws {
        var changes = [AnalyticsStoredState.change(consent)]
        if consent == .denied {
            unpersisted.removeAll()
            _ = sessions.end()
            unsavedState[.session] = nil
            changes.append(try AnalyticsStoredState.change(nil as AnalyticsSession?))
            inbox.state.withLock { $0.sessionID = nil }
        }
        try await queue.saveState(changes)  // first: a crash before the purge leaves the denial stored
        if consent == .denied { try await queue.purge() }
    }

    private func remember(_ change: AnalyticsStoredState.Change?) {
        if let change { unsavedState[change.key] = change }
    }

    /// The records for `events`, in order, with the session events their activity causes.
    private func records(for events: [PendingEvent]) -> [AnalyticsRecord] {
        guard !events.isEmpty else { return [] }
        let recordsSessions = configuration.sessions.recordsEvents
        var records: [AnalyticsRecord] = []
        records.reserveCapacity(events.count)
        for event in events {
            switch event.kind {
            case .reset(let collecting):
                if let ended = sessions.end(), collecting && recordsSessions {
                    records.append(sessionEnd(ended, reason: .reset, identity: event.identity))
                }
            case .event:
                let (ended, started) = sessions.activity(at: event.timestamp) {
                    UUIDv7.make(at: event.timestamp, using: &generator)
                }
                if recordsSessions, let ended {
                    records.append(sessionEnd(ended, reason: .timeout, identity: event.identity))
                }
                if recordsSessions, let started { records.append(sessionStart(started, identity: event.identity)) }
                if let session = sessions.current, let record = process(event, sessionID: session.id) {
                    records.append(record)
                }
            }
        }
        remember(try? AnalyticsStoredState.change(sessions.current))
        let current = sessions.current?.id
        inbox.state.withLock { $0.sessionID = current }
        return records
    }

    private func sessionStart(_ session: AnalyticsSession, identity: AnalyticsIdentity) -> AnalyticsRecord {
        record(
            named: AnalyticsSessionPolicy.startEventName, parameters: [:], at: session.startedAt, session: session.id,
            identity: identity)
    }

    private func sessionEnd(
        _ session: AnalyticsSession, reason: AnalyticsSessionTracker.EndReason, identity: AnalyticsIdentity
    ) -> AnalyticsRecord {
        let duration = Int64((session.lastActivityAt.timeIntervalSince(session.startedAt) * 1000).rounded())
        return record(
            named: AnalyticsSessionPolicy.endEventName,
            parameters: ["duration_ms": "\(duration)", "events": "\(session.events)", "reason": reason.rawValue],
            at: session.lastActivityAt, session: session.id, identity: identity)
    }

    /// A record the manager makes itself (a session event): neither filtered, validated nor sampled.
    private func record(
        named name: String, parameters: [String: String], at timestamp: Date, session: UUID,
        identity: AnalyticsIdentity
    ) -> AnalyticsRecord {
        AnalyticsRecord(
            id: UUIDv7.make(at: timestamp, using: &generator), name: name, parameters: parameters,
            timestamp: timestamp, sessionID: session, context: context, userID: identity.userID,
            anonymousID: identity.anonymousID, traits: identity.traits)
    }

    /// The record for `event`, or nil when validation rejects it or sampling leaves it out.
    private func process(_ event: PendingEvent, sessionID: UUID) -> AnalyticsRecord? {
        let parameters = configuration.privacy.apply(to: event.parameters)
        if let rejection = configuration.limits.rejection(name: event.name, parameters: parameters) {
            inbox.update { $0.rejectedByReason[rejection.reason, default: 0] += 1 }
            logger.debug("analytics event rejected", metadata: ["rejection": "\(rejection)"])
            configuration.onRejection?(rejection)
            return nil
        }
        let rate = configuration.sampling.rate(for: event.name)
        if rate < 1 && configuration.random() >= rate {
            inbox.update { $0.sampledOut += 1 }
            return nil
        }
        return AnalyticsRecord(
            id: UUIDv7.make(at: event.timestamp, using: &generator), name: event.name, parameters: parameters,
            timestamp: event.timestamp, sessionID: sessionID, context: context, sampleRate: rate,
            userID: event.identity.userID, anonymousID: event.identity.anonymousID, traits: event.identity.traits)
    }

    /// Delivers every due record once, in batches, walking the queue forward; returns a storage error if any.
    nonisolated private func deliverDue() async -> (any Error)? {
        var position: Int64 = 0
        while true {
            let batch: [QueuedRecord]
            do {
                batch = try await queue.lease(limit: configuration.batchSize, after: position, now: clock.now)
            } catch { return error }
            guard let last = batch.last else { return nil }
            position = last.seq
            if let error = await deliver(batch) { return error }
        }
    }

    nonisolated private func deliver(_ batch: [QueuedRecord]) async -> (any Error)? {
        var report: DeliveryReport
        do {
            report = try await engine.deliver(batch.map(\.record))
        } catch {
            logger.warning("analytics delivery failed", metadata: ["count": "\(batch.count)", "error": "\(error)"])
            report = DeliveryReport(retry: Dictionary(batch.map { ($0.record.id, "\(error)") }) { first, _ in first })
        }
        var delivered: [Int64] = []
        var rejected: [(Int64, String)] = []
        var retry: [(QueuedRecord, String)] = []
        for item in batch {
            if let reason = report.rejected[item.record.id] {
                rejected.append((item.seq, reason))
            } else if let reason = report.retry[item.record.id] {
                retry.append((item, reason))
            } else {
                delivered.append(item.seq)
            }
        }
        do {
            try await queue.settle(
                delivered: delivered, rejected: rejected, retry: retry, now: clock.now, policy: configuration.retry)
        } catch { return error }
        inbox.update { statistics in
            statistics.delivered += delivered.count
            statistics.engineRejected += rejected.count
            statistics.deliveryFailures += retry.count
        }
        return nil
    }
}

/// Runs delivery passes, one at a time: each wake-up runs one pass over the due records, then answers the flushes that
/// were waiting when it started (with the pass's storage error, if any).
final class AnalyticsDeliverer: Sendable {
    private let waiters = Mutex<(waiting: [CheckedContinuation<Void, any Error>], finished: Bool)>(([], false))
    private let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init() {
        (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a pass; `waiter`, if any, is answered once a pass that started after this call ends.
    func request(_ waiter: CheckedContinuation<Void, any Error>?) {
        if let waiter { waiters.withLock { $0.waiting.append(waiter) } }
        signal.yield()
    }

    /// Ends the loop after the passes asked for so far.
    func finish() {
        waiters.withLock { $0.finished = true }
        signal.yield()
    }

    func run(_ pass: @Sendable () async -> (any Error)?) async {
        for await _ in signals {
            let (waiting, finished) = waiters.withLock { state in
                defer { state.waiting.removeAll() }
                return (state.waiting, state.finished)
            }
            let error = await pass()
            for waiter in waiting {
                if let error { waiter.resume(throwing: error) } else { waiter.resume() }
            }
            if finished && waiters.withLock({ $0.waiting.isEmpty }) { return }
        }
    }
}
