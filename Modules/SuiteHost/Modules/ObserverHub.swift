package import Logging
import ServiceLifecycle
package import SuiteCore
import SuitePluginKit
import Synchronization

/// Attaches observer engines to the bus and feeds them every event, in publish order, in batches.
///
/// Each observer has a bounded queue filled synchronously by the publisher with the event and its envelope (so the
/// time is the publish time and order is kept) and drained by one task that encodes what was queued since its last
/// call as JSON — off the publishing thread — and hands it to the engine. Events arriving at a full queue are
/// dropped and counted in ``droppedCount``. ``shutdown()`` delivers what is queued, then flushes every engine.
///
/// As a swift-service-lifecycle `Service`, the hub runs until the group shuts down gracefully, then shuts down.
package final class ObserverHub: Service, Sendable {
    /// One attached observer.
    struct Attachment: Sendable {
        let name: String
        let engine: any ObserverEngine
        let queue: ObserverQueue
        let task: Task<[String], Never>
    }

    private let attachments: [Attachment]
    private let subscription: Subscription?
    private let shutDown = Atomic<Bool>(false)

    /// Attaches `engines` (name, engine) to `bus`; each gets a queue of `capacity` events.
    package init(
        bus: EventBus, engines: [(name: String, engine: any ObserverEngine)], capacity: Int = 65_536, logger: Logger
    ) {
        var attachments: [Attachment] = []
        for (name, engine) in engines {
            let queue = ObserverQueue(capacity: capacity)
            let task = Task<[String], Never> {
                var errors: [String] = []
                while let queued = await queue.next() {
                    var batch: [ObservedEvent] = []
                    batch.reserveCapacity(queued.count)
                    for (event, envelope) in queued {
                        do {
                            batch.append(try ObservedEvent(event, envelope: envelope))
                        } catch {
                            logger.error(
                                "event not delivered to observer",
                                metadata: ["observer": "\(name)", "event": "\(event.name)", "error": "\(error)"])
                            queue.countDrop()
                        }
                    }
                    do {
                        try await engine.receive(batch)
                    } catch {
                        logger.error("observer failed", metadata: ["observer": "\(name)", "error": "\(error)"])
                        errors.append("observer \(name): \(error)")
                    }
                }
                return errors
            }
            attachments.append(Attachment(name: name, engine: engine, queue: queue, task: task))
        }
        self.attachments = attachments
        guard !attachments.isEmpty else {
            self.subscription = nil
            return
        }
        let queues = attachments.map(\.queue)
        self.subscription = bus.subscribeAll { event, envelope in
            for queue in queues { queue.push((event, envelope)) }
        }
    }

    /// Runs until the service group shuts down (or is cancelled), then delivers what is queued and flushes.
    package func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }

    /// How many observers are attached.
    package var count: Int { attachments.count }

    /// Events dropped because an observer's queue was full (or the event could not be encoded).
    package var droppedCount: Int { attachments.reduce(0) { $0 + $1.queue.dropped } }

    /// Stops taking events, delivers everything queued, then flushes every engine.
    /// Throws a ``SuiteError`` listing every observer failure, after all observers were given the chance to finish.
    package func shutdown() async throws {
        guard !shutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        subscription?.cancel()
        var errors: [String] = []
        for attachment in attachments {
            attachment.queue.finish()
            errors += await attachment.task.value
            do {
                try await attachment.engine.flush()
            } catch {
                errors.append("observer \(attachment.name): flush failed: \(error)")
            }
        }
        let dropped = droppedCount
        if dropped > 0 { errors.append("\(dropped) event(s) dropped: an observer could not keep up") }
        if !errors.isEmpty {
            throw SuiteError(.invalidEvent, errors.joined(separator: "; "), hint: "see the observer's options and log")
        }
    }
}

/// A bounded multi-producer, single-consumer queue handing out everything queued at once.
final class ObserverQueue: Sendable {
    typealias Item = (event: any BusEvent, envelope: EventEnvelope)
    private struct State {
        var buffer: [Item] = []
        var waiter: CheckedContinuation<[Item]?, Never>?
        var finished = false
        var dropped = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var dropped: Int { state.withLock { $0.dropped } }

    func countDrop() { state.withLock { $0.dropped += 1 } }

    func push(_ event: Item) {
        let resume: (CheckedContinuation<[Item]?, Never>, [Item])? = state.withLock { state in
            guard !state.finished else {
                state.dropped += 1
                return nil
            }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, [event])
            }
            guard state.buffer.count < capacity else {
                state.dropped += 1
                return nil
            }
            state.buffer.append(event)
            return nil
        }
        if let (waiter, batch) = resume { waiter.resume(returning: batch) }
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[Item]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.buffer.isEmpty ? state.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    /// The next batch, or `nil` once finished and drained.
    func next() async -> [Item]? {
        await withCheckedContinuation { continuation in
            let immediate: [Item]?? = state.withLock { state in
                if !state.buffer.isEmpty {
                    defer { state.buffer.removeAll(keepingCapacity: true) }
                    return .some(state.buffer)
                }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let immediate { continuation.resume(returning: immediate) }
        }
    }
}
