public import Synchronization

/// The one channel modules talk through: publish typed events, subscribe with a handler or as an `AsyncSequence`.
///
/// An `EventBus` is an ordinary instance passed to every module that needs it; there is no global bus.
///
/// Guarantees:
/// - Publishing is synchronous: every synchronous handler has run when ``publish(_:)`` returns.
/// - Events from one publisher reach every subscriber in publish order.
/// - With many concurrent publishers, every subscriber receives every event exactly once.
/// - Handlers run outside the bus's lock, so a handler may publish, subscribe or cancel.
/// - A stream subscription has a bounded buffer; what does not fit is dropped and counted (``BusStream/droppedCount``
///   and ``droppedEventCount``), never silently lost.
///
/// ```swift
/// let bus = EventBus()
/// let token = bus.subscribe(to: GenericEvent.self) { event in print(event.name) }
/// bus.publish(GenericEvent(name: "demo.hello"))
/// token.cancel()
/// ```
public final class EventBus: Sendable {
    private struct State: Sendable {
        var typed: [ObjectIdentifier: any HandlerListProtocol] = [:]
        var all = HandlerList<any BusEvent>(entries: [])
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())
    private let dropped = DropCounter()

    /// Creates an empty bus.
    public init() {}

    /// Total events dropped by stream subscriptions whose buffer was full, since the bus was created.
    public var droppedEventCount: Int { dropped.count }

    /// The number of live subscriptions (typed and catch-all).
    public var subscriberCount: Int {
        state.withLock { state in
            state.all.entries.count + state.typed.values.reduce(0) { $0 + $1.count }
        }
    }

    // MARK: Publishing

    /// Delivers `event` to every subscriber of its type and to every catch-all subscriber, on the calling thread.
    public func publish<E: BusEvent>(_ event: E) {
        let key = ObjectIdentifier(E.self)
        let (typed, all) = state.withLock { state in (state.typed[key], state.all) }
        if let typed {
            // The list stored under E's identifier is always a HandlerList<E>.
            for entry in unsafeDowncast(typed, to: HandlerList<E>.self).entries {
                entry.handler(event)
            }
        }
        if !all.entries.isEmpty {
            let erased: any BusEvent = event
            for entry in all.entries {
                entry.handler(erased)
            }
        }
    }

    // MARK: Synchronous subscriptions

    /// Calls `handler` for every event of type `E`, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribe<E: BusEvent>(to type: E.Type, _ handler: @escaping @Sendable (E) -> Void) -> Subscription {
        let key = ObjectIdentifier(E.self)
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            let current = state.typed[key].map { unsafeDowncast($0, to: HandlerList<E>.self).entries } ?? []
            state.typed[key] = HandlerList<E>(entries: current + [HandlerEntry(id: id, handler: handler)])
            return id
        }
        return Subscription(bus: self, id: id, key: key)
    }

    /// Calls `handler` for every event of any type, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribeAll(_ handler: @escaping @Sendable (any BusEvent) -> Void) -> Subscription {
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.all = HandlerList(entries: state.all.entries + [HandlerEntry(id: id, handler: handler)])
            return id
        }
        return Subscription(bus: self, id: id, key: nil)
    }

    // MARK: Stream subscriptions

    /// Events of type `E` as an `AsyncSequence` holding at most `bufferSize` undelivered events.
    ///
    /// When the buffer is full, newer events are dropped and counted. The subscription ends when the consuming task
    /// stops iterating (the stream is deallocated or cancelled) or when ``BusStream/cancel()`` is called.
    public func stream<E: BusEvent>(of type: E.Type, bufferSize: Int = 1024) -> BusStream<E> {
        let (stream, continuation) = AsyncStream<E>.makeStream(bufferingPolicy: .bufferingOldest(max(1, bufferSize)))
        let counter = DropCounter()
        let subscription = subscribe(to: E.self) { [dropped] event in
            if case .dropped = continuation.yield(event) {
                counter.increment()
                dropped.increment()
            }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return BusStream(stream: stream, continuation: continuation, counter: counter)
    }

    /// Events of every type as an `AsyncSequence`; see ``stream(of:bufferSize:)``.
    public func streamAll(bufferSize: Int = 1024) -> BusStream<any BusEvent> {
        let (stream, continuation) = AsyncStream<any BusEvent>.makeStream(
            bufferingPolicy: .bufferingOldest(max(1, bufferSize)))
        let counter = DropCounter()
        let subscription = subscribeAll { [dropped] event in
            if case .dropped = continuation.yield(event) {
                counter.increment()
                dropped.increment()
            }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return BusStream(stream: stream, continuation: continuation, counter: counter)
    }

    // MARK: Internals

    fileprivate func remove(id: UInt64, key: ObjectIdentifier?) {
        state.withLock { state in
            if let key {
                guard let list = state.typed[key] else { return }
                let remaining = list.removing(id: id)
                state.typed[key] = remaining.count == 0 ? nil : remaining
            } else {
                state.all = HandlerList(entries: state.all.entries.filter { $0.id != id })
            }
        }
    }
}

// MARK: - Handler storage

/// One subscriber's handler.
struct HandlerEntry<E>: Sendable {
    let id: UInt64
    let handler: @Sendable (E) -> Void
}

protocol HandlerListProtocol: AnyObject, Sendable {
    var count: Int { get }
    func removing(id: UInt64) -> any HandlerListProtocol
}

/// An immutable list of handlers: replaced, never mutated, so publishers can use a snapshot without the lock.
final class HandlerList<E>: HandlerListProtocol, Sendable {
    let entries: [HandlerEntry<E>]
    init(entries: [HandlerEntry<E>]) { self.entries = entries }
    var count: Int { entries.count }
    func removing(id: UInt64) -> any HandlerListProtocol { HandlerList(entries: entries.filter { $0.id != id }) }
}

// MARK: - Subscription

/// A token for a synchronous subscription. Call ``cancel()`` to stop receiving events; cancelling twice is harmless.
public final class Subscription: Sendable {
    private weak let bus: EventBus?
    private let id: UInt64
    private let key: ObjectIdentifier?
    private let cancelled = Atomic<Bool>(false)

    fileprivate init(bus: EventBus, id: UInt64, key: ObjectIdentifier?) {
        self.bus = bus
        self.id = id
        self.key = key
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Removes the subscription; no handler call starts after this returns.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        bus?.remove(id: id, key: key)
    }
}

// MARK: - Streams

/// Counts events dropped by one stream subscription.
final class DropCounter: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// A stream subscription: an `AsyncSequence` of events with a bounded buffer and a visible drop count.
public struct BusStream<Element: Sendable>: AsyncSequence, Sendable {
    public typealias AsyncIterator = AsyncStream<Element>.Iterator
    public typealias Failure = Never

    let stream: AsyncStream<Element>
    let continuation: AsyncStream<Element>.Continuation
    let counter: DropCounter

    /// Events that arrived while the buffer was full and were dropped.
    public var droppedCount: Int { counter.count }

    /// Ends the subscription: buffered events are still delivered, then iteration finishes.
    public func cancel() { continuation.finish() }

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator { stream.makeAsyncIterator() }
}
