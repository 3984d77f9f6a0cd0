public import Foundation
public import Synchronization

/// The one channel modules talk through: publish events, subscribe by type, by name, or to everything.
///
/// An `EventBus` is an ordinary instance passed to every module that needs it; there is no global bus.
///
/// Guarantees:
/// - Publishing is synchronous: every synchronous handler has run when ``publish(_:)`` returns.
/// - Every delivery carries an ``EventEnvelope``: name, time, source module and the publisher's sequence number.
/// - Events from one publisher reach every subscriber in publish order.
/// - With many concurrent publishers, every subscriber receives every event exactly once.
/// - Handlers run outside the bus's lock, so a handler may publish, subscribe or cancel.
/// - A stream subscription has a bounded buffer; what does not fit is dropped and counted (``BusStream/droppedCount``
///   and ``droppedEventCount``), never silently lost.
/// - A cancelled subscription's handler is released once no publish that could still call it is running, also
///   while other threads publish without pause.
///
/// The bus is in-process and bounded. A consumer that must see every change reads the publisher's durable change log
/// (Documents' `changes(after:)`) and uses the bus only to wake up.
///
/// ```swift
/// let bus = EventBus()
/// let token = bus.subscribe(named: "documents.changed", as: Changed.self) { changed, envelope in
///     print(envelope.source, envelope.sequence, changed.paths)
/// }
/// bus.publisher(source: "demo").publish(GenericEvent(name: "demo.hello"))
/// token.cancel()
/// ```
public final class EventBus: @unchecked Sendable {
    // Publishing never takes a lock. Subscribers live in an immutable `Snapshot` reached through an atomic pointer;
    // subscribe/cancel build a new snapshot under `writeLock` and swap it in. A publisher registers in the current
    // epoch's reader count before loading the snapshot. The epoch advances only when the count of the epoch it is
    // about to reuse is zero, so a snapshot retired in epoch E is unreachable once the epoch reaches E + 2.
    // @unchecked: all mutable state is atomic or guarded by `writeLock`.
    @usableFromInline let current: Atomic<UnsafeMutableRawPointer>
    @usableFromInline let epoch = Atomic<UInt64>(0)
    /// Publishes in progress: even epochs counted in the low 32 bits, odd epochs in the high 32 bits.
    @usableFromInline let readers = Atomic<UInt64>(0)
    @usableFromInline let clock: any WallClock
    /// The sequence of events published with ``publish(_:)`` (source `app`).
    @usableFromInline let appSequence = Atomic<UInt64>(0)
    private let writeLock = Mutex(WriterState())
    private let dropped = DropCounter()
    private let undecodable = DropCounter()

    private struct WriterState: ~Copyable {
        var nextID: UInt64 = 1
        var retired: [(epoch: UInt64, pointer: UnsafeMutableRawPointer)] = []
    }

    /// Creates an empty bus whose envelopes take their time from `clock`.
    public init(clock: any WallClock = SystemWallClock()) {
        self.clock = clock
        current = Atomic(Unmanaged.passRetained(Snapshot(typed: [], all: [], named: [:])).toOpaque())
    }

    deinit {
        Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .acquiring)).release()
        writeLock.withLock { state in
            for item in state.retired { Unmanaged<Snapshot>.fromOpaque(item.pointer).release() }
        }
    }

    /// Total events dropped by stream subscriptions whose buffer was full, since the bus was created.
    public var droppedEventCount: Int { dropped.count }

    /// Deliveries to name-based subscribers skipped because the payload did not decode into the subscriber's type.
    public var undecodableEventCount: Int { undecodable.count }

    /// The number of live subscriptions (typed, named and catch-all).
    public var subscriberCount: Int {
        writeLock.withLock { _ in
            Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .acquiring))._withUnsafeGuaranteedRef {
                $0.all.count + $0.typed.reduce(0) { $0 + $1.list.count } + $0.named.values.reduce(0) { $0 + $1.count }
            }
        }
    }

    /// Replaced subscriber lists still waiting for publishers that may read them (tests and `suite status`).
    public var retiredSnapshotCount: Int { writeLock.withLock { $0.retired.count } }

    /// A publisher stamping `source` (the module's name, e.g. `documents`) and its own sequence on its events.
    ///
    /// Keep one per module instance: the sequence counts that publisher's events from 1.
    public func publisher(source: String) -> EventPublisher {
        EventPublisher(source: source, bus: self)
    }

    // MARK: Publishing

    /// Publishes `event` with source `app` (see ``publisher(source:)`` for a module's own publisher).
    @inlinable
    public func publish<E: BusEvent>(_ event: E) {
        deliver(event, source: "app", sequence: appSequence.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    /// Delivers `event` to its typed, named and catch-all subscribers, on the calling thread.
    @inlinable
    func deliver<E: BusEvent>(_ event: E, source: String, sequence: UInt64) {
        let key = ObjectIdentifier(E.self)
        let readEpoch = enterReader()
        Unmanaged<Snapshot>.fromOpaque(current.load(ordering: .sequentiallyConsistent))._withUnsafeGuaranteedRef {
            snapshot in
            guard !snapshot.isEmpty else { return }
            let list = snapshot.typedKeys.firstIndex(of: key).map { snapshot.typedLists[$0] }
            // The envelope (a clock read, two strings) is made only when a handler takes one.
            var wantsEnvelope = snapshot.othersWantEnvelope
            if !wantsEnvelope, let list {
                wantsEnvelope = Unmanaged<HandlerList<E>>.fromOpaque(list)._withUnsafeGuaranteedRef { $0.wantsEnvelope }
            }
            let envelope =
                wantsEnvelope
                ? EventEnvelope(name: event.name, time: clock.now, source: source, sequence: sequence)
                : EventEnvelope(name: "", time: Date(timeIntervalSinceReferenceDate: 0), source: "", sequence: 0)
            // Hot path without reference counting: keys and list pointers are trivial values; the snapshot (alive
            // while this reader is counted) owns the lists.
            if let list {
                // The list stored under E's identifier is always a HandlerList<E>.
                Unmanaged<HandlerList<E>>.fromOpaque(list)._withUnsafeGuaranteedRef { list in
                    list.unretained.withUnsafeBufferPointer { entries in
                        for entry in entries {
                            entry._withUnsafeGuaranteedRef { handler in
                                if handler.takesEnvelope { handler.full(event, envelope) } else { handler.plain(event) }
                            }
                        }
                    }
                }
            }
            if snapshot.hasNamed, let entries = snapshot.named[event.name] {
                let encoded = EncodedPayload(event.payload)
                for entry in entries { entry.handler(event.payload, encoded, envelope) }
            }
            if !snapshot.allUnretained.isEmpty {
                let erased: any BusEvent = event
                snapshot.allUnretained.withUnsafeBufferPointer { entries in
                    for entry in entries {
                        entry._withUnsafeGuaranteedRef { handler in
                            if handler.takesEnvelope { handler.full(erased, envelope) } else { handler.plain(erased) }
                        }
                    }
                }
            }
        }
        leaveReader(readEpoch)
    }

    /// Counts this publish in the current epoch's readers; returns that epoch.
    @inlinable
    func enterReader() -> UInt64 {
        while true {
            let e = epoch.load(ordering: .sequentiallyConsistent)
            readers.wrappingAdd(Self.readerUnit(e), ordering: .sequentiallyConsistent)
            if epoch.load(ordering: .sequentiallyConsistent) == e { return e }
            readers.wrappingSubtract(Self.readerUnit(e), ordering: .sequentiallyConsistent)
        }
    }

    @inlinable
    func leaveReader(_ e: UInt64) {
        readers.wrappingSubtract(Self.readerUnit(e), ordering: .sequentiallyConsistent)
    }

    /// One reader of epoch `e` in ``readers``.
    @inlinable
    static func readerUnit(_ e: UInt64) -> UInt64 { e & 1 == 0 ? 1 : 1 << 32 }

    // MARK: Synchronous subscriptions

    /// Calls `handler` for every event of type `E`, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribe<E: BusEvent>(to type: E.Type, _ handler: @escaping @Sendable (E) -> Void) -> Subscription {
        subscribe(to: type, HandlerEntry(id: 0, plain: handler))
    }

    /// Calls `handler` with every event of type `E` and its envelope, on the publisher's thread.
    @discardableResult
    public func subscribe<E: BusEvent>(
        to type: E.Type, _ handler: @escaping @Sendable (E, EventEnvelope) -> Void
    ) -> Subscription {
        subscribe(to: type, HandlerEntry(id: 0, full: handler))
    }

    private func subscribe<E: BusEvent>(to type: E.Type, _ template: HandlerEntry<E>) -> Subscription {
        let key = ObjectIdentifier(E.self)
        let id = update { snapshot, id in
            var typed = snapshot.typed
            let entry = template.with(id: id)
            if let index = typed.firstIndex(where: { $0.key == key }) {
                let entries = unsafeDowncast(typed[index].list, to: HandlerList<E>.self).entries
                typed[index].list = HandlerList<E>(entries: entries + [entry])
            } else {
                typed.append(TypedSlot(key: key, list: HandlerList<E>(entries: [entry])))
            }
            return Snapshot(typed: typed, all: snapshot.all, named: snapshot.named)
        }
        return Subscription(bus: self, id: id, key: .typed(key))
    }

    /// Calls `handler` for every event named `name`, with its payload decoded into the subscriber's own type `P`.
    ///
    /// This is how a module listens to another without importing it: declare a `Codable` struct with the fields you
    /// need (docs/events.md lists each event's payload) and subscribe by name. When the publisher's payload type is
    /// `P` itself it is passed as is; otherwise it goes through JSON once per publish (dates as ISO 8601). A payload
    /// that does not decode into `P` is skipped and counted in ``undecodableEventCount``.
    @discardableResult
    public func subscribe<P: Decodable & Sendable>(
        named name: String, as type: P.Type, _ handler: @escaping @Sendable (P, EventEnvelope) -> Void
    ) -> Subscription {
        let undecodable = undecodable
        let entry = NamedEntry(id: 0) { payload, encoded, envelope in
            if let same = payload as? P {
                handler(same, envelope)
            } else if let decoded = encoded.decode(P.self) {
                handler(decoded, envelope)
            } else {
                undecodable.increment()
            }
        }
        let id = update { snapshot, id in
            var named = snapshot.named
            named[name, default: []].append(NamedEntry(id: id, handler: entry.handler))
            return Snapshot(typed: snapshot.typed, all: snapshot.all, named: named)
        }
        return Subscription(bus: self, id: id, key: .named(name))
    }

    /// Calls `handler` for every event of any type, on the publisher's thread. Cancel the returned token to stop.
    @discardableResult
    public func subscribeAll(_ handler: @escaping @Sendable (any BusEvent) -> Void) -> Subscription {
        subscribeAll(HandlerEntry(id: 0, plain: handler))
    }

    /// Calls `handler` with every event of any type and its envelope, on the publisher's thread.
    @discardableResult
    public func subscribeAll(_ handler: @escaping @Sendable (any BusEvent, EventEnvelope) -> Void) -> Subscription {
        subscribeAll(HandlerEntry(id: 0, full: handler))
    }

    private func subscribeAll(_ template: HandlerEntry<any BusEvent>) -> Subscription {
        let id = update { snapshot, id in
            Snapshot(typed: snapshot.typed, all: snapshot.all + [template.with(id: id)], named: snapshot.named)
        }
        return Subscription(bus: self, id: id, key: .all)
    }

    // MARK: Stream subscriptions

    /// Events of type `E` as an `AsyncSequence` holding at most `bufferSize` undelivered events.
    ///
    /// When the buffer is full, newer events are dropped and counted. The subscription ends when the consuming task
    /// stops iterating (the stream is deallocated or cancelled) or when ``BusStream/cancel()`` is called.
    public func stream<E: BusEvent>(of type: E.Type, bufferSize: Int = 1024) -> BusStream<E> {
        makeStream(bufferSize: bufferSize) { yield in subscribe(to: E.self) { event in yield(event) } }
    }

    /// Events named `name`, decoded into `P`, with their envelopes; see ``subscribe(named:as:_:)`` and
    /// ``stream(of:bufferSize:)``.
    public func stream<P: Decodable & Sendable>(
        named name: String, as type: P.Type, bufferSize: Int = 1024
    ) -> BusStream<ReceivedEvent<P>> {
        makeStream(bufferSize: bufferSize) { yield in
            subscribe(named: name, as: P.self) { payload, envelope in
                yield(ReceivedEvent(payload: payload, envelope: envelope))
            }
        }
    }

    /// Events of every type as an `AsyncSequence`; see ``stream(of:bufferSize:)``.
    public func streamAll(bufferSize: Int = 1024) -> BusStream<any BusEvent> {
        makeStream(bufferSize: bufferSize) { yield in subscribeAll { event in yield(event) } }
    }

    private func makeStream<Element: Sendable>(
        bufferSize: Int, _ subscribe: (@escaping @Sendable (Element) -> Void) -> Subscription
    ) -> BusStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(
            bufferingPolicy: .bufferingOldest(max(1, bufferSize)))
        let counter = DropCounter()
        let subscription = subscribe { [dropped] element in
            if case .dropped = continuation.yield(element) {
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
        state.retired.append((epoch.load(ordering: .sequentiallyConsistent), old))
        reclaim(&state)
    }

    /// Advances the epoch as far as drained reader counts allow (at most twice), then frees every snapshot retired
    /// two or more epochs ago.
    private func reclaim(_ state: inout WriterState) {
        for _ in 0..<2 {
            let e = epoch.load(ordering: .sequentiallyConsistent)
            // The next epoch reuses the parity of e - 1: its readers must all have left.
            let count = readers.load(ordering: .sequentiallyConsistent) >> ((e + 1) & 1 == 0 ? 0 : 32)
            guard count & 0xFFFF_FFFF == 0 else { break }
            epoch.store(e + 1, ordering: .sequentiallyConsistent)
        }
        let now = epoch.load(ordering: .sequentiallyConsistent)
        state.retired.removeAll { item in
            guard item.epoch + 2 <= now else { return false }
            Unmanaged<Snapshot>.fromOpaque(item.pointer).release()
            return true
        }
    }

    func remove(id: UInt64, key: Subscription.Key) {
        writeLock.withLock { state in
            swapSnapshot(&state) { snapshot in
                switch key {
                case .typed(let key):
                    var typed = snapshot.typed
                    if let index = typed.firstIndex(where: { $0.key == key }) {
                        let remaining = typed[index].list.removing(id: id)
                        if remaining.count == 0 { typed.remove(at: index) } else { typed[index].list = remaining }
                    }
                    return Snapshot(typed: typed, all: snapshot.all, named: snapshot.named)
                case .named(let name):
                    var named = snapshot.named
                    named[name]?.removeAll { $0.id == id }
                    if named[name]?.isEmpty == true { named[name] = nil }
                    return Snapshot(typed: snapshot.typed, all: snapshot.all, named: named)
                case .all:
                    return Snapshot(
                        typed: snapshot.typed, all: snapshot.all.filter { $0.id != id }, named: snapshot.named)
                }
            }
        }
    }
}
