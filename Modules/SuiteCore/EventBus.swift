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
public final class EventBus: @unchecked Sendable {
    // Publishing never takes a lock. Subscribers live in an immutable `Snapshot` reached through an atomic pointer;
    // subscribe/unsubscribe (rare) build a new snapshot under `writeLock` and swap it in. A replaced snapshot is freed
    // only when no publish is in flight (`activePublishers == 0` observed after the swap), so a publisher can use the
    // snapshot it loaded without retaining it. @unchecked: all mutable state is atomic or guarded by `writeLock`.
    @usableFromInline let current: Atomic<UnsafeMutableRawPointer>
    @usableFromInline let activePublishers = Atomic<Int>(0)
    private let writeLock = Mutex(WriterState())
    private let dropped = DropCounter()

    private struct WriterState: ~Copyable {
        var nextID: UInt64 = 1
        var retired: [UnsafeMutableRawPointer] = []
    }

    /// Creates an empty bus.
    public init() {
        current = Atomic(Unmanaged.passRetained(Snapshot(typed: [], all: [])).toOpaque())
    }

    deinit {
        Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .acquiring)).release()
        writeLock.withLock { state in
            for pointer in state.retired { Unmanaged<Snapshot>.fromOpaque(pointer).release() }
        }
    }

    /// Total events dropped by stream subscriptions whose buffer was full, since the bus was created.
    public var droppedEventCount: Int { dropped.count }

    /// The number of live subscriptions (typed and catch-all).
    public var subscriberCount: Int {
        writeLock.withLock { _ in
            Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .acquiring))._withUnsafeGuaranteedRef {
                $0.all.count + $0.typed.reduce(0) { $0 + $1.list.count }
            }
        }
    }

    // MARK: Publishing

    /// Delivers `event` to every subscriber of its type and to every catch-all subscriber, on the calling thread.
    @inlinable
    public func publish<E: BusEvent>(_ event: E) {
        let key = ObjectIdentifier(E.self)
        activePublishers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .sequentiallyConsistent))._withUnsafeGuaranteedRef {
            snapshot in
            // Hot path without reference counting: keys and list pointers are trivial values; the snapshot (alive
            // while this publish is counted) owns the lists.
            if let index = snapshot.typedKeys.firstIndex(of: key) {
                // The list stored under E's identifier is always a HandlerList<E>.
                Unmanaged<HandlerList<E>>.fromOpaque(snapshot.typedLists[index])._withUnsafeGuaranteedRef { list in
                    list.unretained.withUnsafeBufferPointer { entries in
                        for entry in entries { entry._withUnsafeGuaranteedRef { $0.handler(event) } }
                    }
                }
            }
            if !snapshot.allUnretained.isEmpty {
                let erased: any BusEvent = event
                snapshot.allUnretained.withUnsafeBufferPointer { entries in
                    for entry in entries { entry._withUnsafeGuaranteedRef { $0.handler(erased) } }
                }
            }
        }
        activePublishers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    // MARK: Synchronous subscriptions

    /// Calls `handler` for every event of type `E`, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribe<E: BusEvent>(to type: E.Type, _ handler: @escaping @Sendable (E) -> Void) -> Subscription {
        let key = ObjectIdentifier(E.self)
        let id = update { snapshot, id in
            var typed = snapshot.typed
            if let index = typed.firstIndex(where: { $0.key == key }) {
                let entries = unsafeDowncast(typed[index].list, to: HandlerList<E>.self).entries
                typed[index].list = HandlerList<E>(entries: entries + [HandlerEntry(id: id, handler: handler)])
            } else {
                typed.append(
                    TypedSlot(key: key, list: HandlerList<E>(entries: [HandlerEntry(id: id, handler: handler)])))
            }
            return Snapshot(typed: typed, all: snapshot.all)
        }
        return Subscription(bus: self, id: id, key: key)
    }

    /// Calls `handler` for every event of any type, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribeAll(_ handler: @escaping @Sendable (any BusEvent) -> Void) -> Subscription {
        let id = update { snapshot, id in
            Snapshot(typed: snapshot.typed, all: snapshot.all + [HandlerEntry(id: id, handler: handler)])
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

    /// Replaces the snapshot with `change(old, newID)` under the write lock; returns the new subscription id.
    private func update(_ change: @Sendable (Snapshot, UInt64) -> Snapshot) -> UInt64 {
        writeLock.withLock { state in
            let id = state.nextID
            state.nextID += 1
            swapSnapshot(&state) { change($0, id) }
            return id
        }
    }

    private func swapSnapshot(_ state: inout WriterState, _ change: @Sendable (Snapshot) -> Snapshot) {
        let old = current.load(ordering: .sequentiallyConsistent)
        let next = Unmanaged<Snapshot>.fromOpaque(old)._withUnsafeGuaranteedRef { change($0) }
        current.store(Unmanaged.passRetained(next).toOpaque(), ordering: .sequentiallyConsistent)
        state.retired.append(old)
        // A publisher that could still hold a retired snapshot counted itself before loading it; once none is active,
        // every retired snapshot is unreachable.
        if activePublishers.load(ordering: .sequentiallyConsistent) == 0 {
            for pointer in state.retired { Unmanaged<Snapshot>.fromOpaque(pointer).release() }
            state.retired.removeAll()
        }
    }

    fileprivate func remove(id: UInt64, key: ObjectIdentifier?) {
        writeLock.withLock { state in
            swapSnapshot(&state) { snapshot in
                if let key {
                    var typed = snapshot.typed
                    if let index = typed.firstIndex(where: { $0.key == key }) {
                        let remaining = typed[index].list.removing(id: id)
                        if remaining.count == 0 { typed.remove(at: index) } else { typed[index].list = remaining }
                    }
                    return Snapshot(typed: typed, all: snapshot.all)
                }
                return Snapshot(typed: snapshot.typed, all: snapshot.all.filter { $0.id != id })
            }
        }
    }
}

/// The subscribers at one moment: replaced, never mutated.
@usableFromInline
final class Snapshot: @unchecked Sendable {
    // @unchecked: immutable; `typedLists` are unretained pointers to the lists that `typed` owns.
    let typed: [TypedSlot]
    @usableFromInline let typedKeys: [ObjectIdentifier]
    @usableFromInline let typedLists: [UnsafeMutableRawPointer]
    let all: [HandlerEntry<any BusEvent>]
    /// `all` without reference counting, for the publish loop (`all` keeps the entries alive).
    @usableFromInline let allUnretained: [Unmanaged<HandlerEntry<any BusEvent>>]

    init(typed: [TypedSlot], all: [HandlerEntry<any BusEvent>]) {
        self.typed = typed
        self.typedKeys = typed.map(\.key)
        self.typedLists = typed.map { Unmanaged.passUnretained($0.list as AnyObject).toOpaque() }
        self.all = all
        self.allUnretained = all.map { Unmanaged.passUnretained($0) }
    }
}

/// The handlers of one event type. A linear scan over a few types beats hashing on every publish.
struct TypedSlot: Sendable {
    let key: ObjectIdentifier
    var list: any HandlerListProtocol
}

// MARK: - Handler storage

/// One subscriber's handler. A class, so the publish loop can call it through an unretained reference: the closure is
/// borrowed from a `let`, with no reference counting per delivery.
@usableFromInline
final class HandlerEntry<E>: Sendable {
    let id: UInt64
    @usableFromInline let handler: @Sendable (E) -> Void
    init(id: UInt64, handler: @escaping @Sendable (E) -> Void) {
        self.id = id
        self.handler = handler
    }
}

@usableFromInline
protocol HandlerListProtocol: AnyObject, Sendable {
    var count: Int { get }
    func removing(id: UInt64) -> any HandlerListProtocol
}

/// An immutable list of handlers: replaced, never mutated, so publishers can use a snapshot without the lock.
@usableFromInline
final class HandlerList<E>: HandlerListProtocol, Sendable {
    let entries: [HandlerEntry<E>]
    /// `entries` without reference counting, for the publish loop (`entries` keeps them alive).
    @usableFromInline let unretained: [Unmanaged<HandlerEntry<E>>]
    init(entries: [HandlerEntry<E>]) {
        self.entries = entries
        self.unretained = entries.map { Unmanaged.passUnretained($0) }
    }
    @usableFromInline var count: Int { entries.count }
    @usableFromInline func removing(id: UInt64) -> any HandlerListProtocol {
        HandlerList(entries: entries.filter { $0.id != id })
    }
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

    /// Removes the subscription. Publishes that start after this returns no longer call the handler; one already in
    /// progress on another thread may still deliver its event.
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
