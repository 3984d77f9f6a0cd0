public import Logging
public import SuiteCore
import SuitePluginKit
import Synchronization

/// Attaches observer engines to the bus and feeds them every event, in publish order, in batches.
///
/// Each observer has a bounded queue filled synchronously by the publisher (so the event's time is its publish time
/// and order is kept) and drained by one task that hands the engine everything queued since its last call. Events
/// arriving at a full queue are dropped and counted in ``droppedCount``. ``shutdown()`` delivers what is queued,
/// then flushes every engine.
public final class ObserverHub: Sendable {
    /// One attached observer.
    struct Attachment: Sendable {
        let name: String
        let engine: any ObserverEngine
        let queue: ObserverQueue
        let task: Task<[String], Never>
    }

    private let attachments: [Attachment]
    private let subscription: Subscription?

    /// Attaches `engines` (name, engine) to `bus`; each gets a queue of `capacity` events.
    public init(
        bus: EventBus, engines: [(name: String, engine: any ObserverEngine)], clock: any WallClock,
        capacity: Int = 65_536, logger: Logger
    ) {
        var attachments: [Attachment] = []
        for (name, engine) in engines {
            let queue = ObserverQueue(capacity: capacity)
            let task = Task<[String], Never> {
                var errors: [String] = []
                while let batch = await queue.next() {
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
        self.subscription = bus.subscribeAll { event in
            let observed: ObservedEvent
            do {
                observed = try ObservedEvent(event, time: clock.now)
            } catch {
                logger.error(
                    "event not delivered to observers", metadata: ["event": "\(event.name)", "error": "\(error)"])
                for queue in queues { queue.countDrop() }
                return
            }
            for queue in queues { queue.push(observed) }
        }
    }

    /// How many observers are attached.
    public var count: Int { attachments.count }

    /// Events dropped because an observer's queue was full (or the event could not be encoded).
    public var droppedCount: Int { attachments.reduce(0) { $0 + $1.queue.dropped } }

    /// Stops taking events, delivers everything queued, then flushes every engine.
    /// Throws a ``SuiteError`` listing every observer failure, after all observers were given the chance to finish.
    public func shutdown() async throws {
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
    private struct State {
        var buffer: [ObservedEvent] = []
        var waiter: CheckedContinuation<[ObservedEvent]?, Never>?
        var finished = false
        var dropped = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var dropped: Int { state.withLock { $0.dropped } }

    func countDrop() { state.withLock { $0.dropped += 1 } }

    func push(_ event: ObservedEvent) {
        let resume: (CheckedContinuation<[ObservedEvent]?, Never>, [ObservedEvent])? = state.withLock { state in
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
        let waiter = state.withLock { state -> CheckedContinuation<[ObservedEvent]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.buffer.isEmpty ? state.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    /// The next batch, or `nil` once finished and drained.
    func next() async -> [ObservedEvent]? {
        await withCheckedContinuation { continuation in
            let immediate: [ObservedEvent]?? = state.withLock { state in
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
