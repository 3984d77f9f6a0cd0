import Foundation
import Logging
import SuiteCore

/// The background writer: takes what `log` buffered, turns it into records (privacy, validation, sampling, id),
/// persists them in the queue, then delivers due records to the engine. One writer per manager, so one flusher.
actor AnalyticsPipeline {
    let inbox: AnalyticsInbox
    let queue: AnalyticsQueue
    let engine: any AnalyticsEngine
    let configuration: AnalyticsConfiguration
    let sessionID: UUID
    let clock: any WallClock
    let logger: Logger
    /// Records processed but not yet persisted (the queue's write failed); retried first on the next cycle.
    private var unpersisted: [AnalyticsRecord] = []
    private var generator = SystemRandomNumberGenerator()

    init(
        inbox: AnalyticsInbox, queue: AnalyticsQueue, engine: any AnalyticsEngine,
        configuration: AnalyticsConfiguration, sessionID: UUID, clock: any WallClock, logger: Logger
    ) {
        self.inbox = inbox
        self.queue = queue
        self.engine = engine
        self.configuration = configuration
        self.sessionID = sessionID
        self.clock = clock
        self.logger = logger
    }

    /// Runs a cycle per wake-up until the manager stops.
    func run() async {
        for await _ in inbox.signals {
            if await cycle() { return }
        }
    }

    /// Persists, carries out commands and delivers; true once a stop command was answered.
    private func cycle() async -> Bool {
        let (events, commands) = inbox.take()
        unpersisted += events.compactMap(process)
        var persistError: (any Error)?
        if !unpersisted.isEmpty {
            do {
                try await queue.append(unpersisted)
                inbox.update { $0.persisted += unpersisted.count }
                unpersisted.removeAll()
            } catch {
                persistError = error
                logger.error("cannot persist analytics events", metadata: ["error": "\(error)"])
            }
        }
        for command in commands {
            if case .persist(let continuation) = command {
                if let persistError { continuation.resume(throwing: persistError) } else { continuation.resume() }
            }
            if case .purge(let continuation) = command {
                unpersisted.removeAll()
                do {
                    try await queue.purge()
                    continuation.resume()
                } catch { continuation.resume(throwing: error) }
            }
        }
        let deliveryError = await deliverDue()
        var stopped = false
        for command in commands {
            switch command {
            case .purge, .persist: break
            case .flush(let continuation), .stop(let continuation):
                if case .stop = command { stopped = true }
                if let error = persistError ?? deliveryError {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
        }
        return stopped
    }

    /// The record for `event`, or nil when validation rejects it or sampling leaves it out.
    private func process(_ event: PendingEvent) -> AnalyticsRecord? {
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
            timestamp: event.timestamp, sessionID: sessionID, context: configuration.context, sampleRate: rate)
    }

    /// Delivers every due record once, in batches, walking the queue forward; returns a storage error if any.
    private func deliverDue() async -> (any Error)? {
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

    private func deliver(_ batch: [QueuedRecord]) async -> (any Error)? {
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
