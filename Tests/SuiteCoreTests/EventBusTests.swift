import Foundation
import SuiteCore
import Synchronization
import Testing

struct Ping: BusEvent {
    var name: String { "test.ping" }
    var payload: Payload
    struct Payload: Codable, Sendable, Hashable {
        var publisher: Int
        var sequence: Int
    }
    init(publisher: Int = 0, sequence: Int) { payload = Payload(publisher: publisher, sequence: sequence) }
}

struct Pong: BusEvent {
    var name: String { "test.pong" }
    var payload: Int
}

/// Collects what a handler saw, thread-safely. (NSLock rather than Synchronization.Mutex: ThreadSanitizer on Linux
/// does not see Mutex's futex as synchronization and reports false races; with NSLock these tests run TSan-clean.)
final class Recorder<T: Sendable>: @unchecked Sendable {
    private var items: [T] = []
    private let lock = NSLock()
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

@Suite("EventBus")
struct EventBusTests {
    @Test("a synchronous subscriber sees one publisher's events in publish order")
    func publishOrder() {
        let bus = EventBus()
        let seen = Recorder<Int>()
        bus.subscribe(to: Ping.self) { seen.append($0.payload.sequence) }
        for i in 0..<1000 { bus.publish(Ping(sequence: i)) }
        #expect(seen.all == Array(0..<1000))
    }

    @Test("typed subscribers get only their type; catch-all subscribers get every type")
    func typeRouting() {
        let bus = EventBus()
        let pings = Recorder<Int>()
        let names = Recorder<String>()
        bus.subscribe(to: Ping.self) { pings.append($0.payload.sequence) }
        bus.subscribeAll { names.append($0.name) }
        bus.publish(Ping(sequence: 7))
        bus.publish(Pong(payload: 1))
        #expect(pings.all == [7])
        #expect(names.all == ["test.ping", "test.pong"])
    }

    @Test("with concurrent publishers every subscriber gets every event exactly once, each publisher in order")
    func concurrentPublishersExactlyOnce() async {
        let bus = EventBus()
        let publishers = 8
        let perPublisher = 2000
        let recorders = (0..<3).map { _ in Recorder<Ping.Payload>() }
        for recorder in recorders {
            bus.subscribe(to: Ping.self) { recorder.append($0.payload) }
        }
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<publishers {
                group.addTask {
                    for i in 0..<perPublisher { bus.publish(Ping(publisher: p, sequence: i)) }
                }
            }
        }
        for recorder in recorders {
            let all = recorder.all
            #expect(all.count == publishers * perPublisher)
            #expect(Set(all).count == publishers * perPublisher)
            for p in 0..<publishers {
                #expect(all.filter { $0.publisher == p }.map(\.sequence) == Array(0..<perPublisher))
            }
        }
    }

    @Test("cancelling the token stops delivery and removes the subscriber")
    func unsubscribe() {
        let bus = EventBus()
        let seen = Recorder<Int>()
        let token = bus.subscribe(to: Ping.self) { seen.append($0.payload.sequence) }
        bus.publish(Ping(sequence: 1))
        #expect(bus.subscriberCount == 1)
        token.cancel()
        token.cancel()
        bus.publish(Ping(sequence: 2))
        #expect(seen.all == [1])
        #expect(token.isCancelled)
        #expect(bus.subscriberCount == 0)
    }

    @Test("a handler may publish and subscribe without deadlocking (handlers run outside the lock)")
    func reentrantHandler() {
        let bus = EventBus()
        let pongs = Recorder<Int>()
        bus.subscribe(to: Pong.self) { pongs.append($0.payload) }
        bus.subscribe(to: Ping.self) { ping in
            bus.publish(Pong(payload: ping.payload.sequence * 10))
            bus.subscribe(to: Pong.self) { _ in }.cancel()
        }
        bus.publish(Ping(sequence: 4))
        #expect(pongs.all == [40])
    }

    @Test("a stream subscription delivers in order and ends when cancelled")
    func streamDelivery() async {
        let bus = EventBus()
        let stream = bus.stream(of: Ping.self, bufferSize: 100)
        #expect(bus.subscriberCount == 1)
        for i in 0..<50 { bus.publish(Ping(sequence: i)) }
        stream.cancel()
        bus.publish(Ping(sequence: 999))
        var received: [Int] = []
        for await ping in stream { received.append(ping.payload.sequence) }
        #expect(received == Array(0..<50))
        #expect(stream.droppedCount == 0)
        #expect(bus.subscriberCount == 0)
    }

    @Test("a full stream buffer drops newer events and counts them, on the stream and on the bus")
    func boundedBufferCountsDrops() async {
        let bus = EventBus()
        let stream = bus.stream(of: Ping.self, bufferSize: 10)
        for i in 0..<25 { bus.publish(Ping(sequence: i)) }
        #expect(stream.droppedCount == 15)
        #expect(bus.droppedEventCount == 15)
        stream.cancel()
        var received: [Int] = []
        for await ping in stream { received.append(ping.payload.sequence) }
        #expect(received == Array(0..<10))
    }

    @Test("ending the consuming task ends the stream subscription")
    func streamEndsWithConsumer() async throws {
        let bus = EventBus()
        let task = Task {
            var count = 0
            for await _ in bus.streamAll(bufferSize: 16) { count += 1 }
            return count
        }
        // Wait until the stream has subscribed.
        while bus.subscriberCount == 0 { await Task.yield() }
        bus.publish(Pong(payload: 1))
        task.cancel()
        _ = await task.value
        #expect(bus.subscriberCount == 0)
    }

    @Test("publishing stays exact while other tasks subscribe and cancel concurrently")
    func churnWhilePublishing() async {
        let bus = EventBus()
        let steady = Recorder<Ping.Payload>()
        bus.subscribe(to: Ping.self) { steady.append($0.payload) }
        let publishers = 4
        let perPublisher = 5000
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<publishers {
                group.addTask {
                    for i in 0..<perPublisher { bus.publish(Ping(publisher: p, sequence: i)) }
                }
            }
            group.addTask {
                for _ in 0..<2000 {
                    let token = bus.subscribe(to: Ping.self) { _ in }
                    let all = bus.subscribeAll { _ in }
                    token.cancel()
                    all.cancel()
                }
            }
        }
        #expect(steady.all.count == publishers * perPublisher)
        #expect(Set(steady.all).count == publishers * perPublisher)
        #expect(bus.subscriberCount == 1)
    }

    @Test("every delivery carries an envelope: name, the bus clock's time, the source and the publisher's sequence")
    func envelopes() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let bus = EventBus(clock: clock)
        let seen = Recorder<EventEnvelope>()
        bus.subscribe(to: Ping.self) { _, envelope in seen.append(envelope) }
        let loyalty = bus.publisher(source: "loyalty")
        let other = bus.publisher(source: "other")
        loyalty.publish(Ping(sequence: 0))
        clock.advance(by: 1)
        other.publish(Ping(sequence: 0))
        loyalty.publish(Ping(sequence: 1))
        bus.publish(Ping(sequence: 2))
        #expect(
            seen.all == [
                EventEnvelope(
                    name: "test.ping", time: Date(timeIntervalSince1970: 1_800_000_000), source: "loyalty", sequence: 1),
                EventEnvelope(
                    name: "test.ping", time: Date(timeIntervalSince1970: 1_800_000_001), source: "other", sequence: 1),
                EventEnvelope(
                    name: "test.ping", time: Date(timeIntervalSince1970: 1_800_000_001), source: "loyalty", sequence: 2),
                EventEnvelope(
                    name: "test.ping", time: Date(timeIntervalSince1970: 1_800_000_001), source: "app", sequence: 1),
            ])
        #expect(loyalty.publishedCount == 2)
    }

    /// A subscriber's own view of `test.ping`: only the field it needs, declared without importing the publisher.
    struct MyPing: Codable, Sendable, Equatable {
        var sequence: Int
    }

    @Test("subscribing by name decodes the payload into the subscriber's own Codable type")
    func namedSubscription() async {
        let bus = EventBus()
        let seen = Recorder<Int>()
        let sources = Recorder<String>()
        let same = Recorder<Ping.Payload>()
        let token = bus.subscribe(named: "test.ping", as: MyPing.self) { ping, envelope in
            seen.append(ping.sequence)
            sources.append(envelope.source)
        }
        bus.subscribe(named: "test.ping", as: Ping.Payload.self) { payload, _ in same.append(payload) }
        // A payload that cannot become the subscriber's type is skipped and counted, never a crash.
        bus.subscribe(named: "test.pong", as: MyPing.self) { ping, _ in seen.append(-ping.sequence) }
        bus.publisher(source: "pinger").publish(Ping(publisher: 3, sequence: 7))
        bus.publish(GenericEvent(name: "test.ping", payload: ["sequence": 8, "extra": "ignored"]))
        bus.publish(Pong(payload: 5))
        bus.publish(GenericEvent(name: "test.other", payload: ["sequence": 9]))
        #expect(seen.all == [7, 8])
        #expect(sources.all == ["pinger", "app"])
        #expect(same.all == [Ping.Payload(publisher: 3, sequence: 7)])
        #expect(bus.undecodableEventCount == 2)  // GenericEvent without `publisher` for Ping.Payload; Pong's Int
        token.cancel()
        bus.publish(Ping(sequence: 10))
        #expect(seen.all == [7, 8])

        let stream = bus.stream(named: "test.ping", as: MyPing.self, bufferSize: 8)
        bus.publish(Ping(sequence: 11))
        stream.cancel()
        var streamed: [EventEnvelope] = []
        for await received in stream {
            #expect(received.payload == MyPing(sequence: 11))
            streamed.append(received.envelope)
        }
        #expect(streamed.map(\.name) == ["test.ping"])
    }

    /// Counts live handler contexts: each subscription's closure captures one.
    final class Witness: Sendable {
        static let alive = Atomic<Int>(0)
        init() { Self.alive.add(1, ordering: .relaxed) }
        deinit { Self.alive.subtract(1, ordering: .relaxed) }
        func touch() {}
    }

    @Test("10,000 subscribe/cancel cycles while others publish without pause: cancelled handlers are released")
    func churnReleasesHandlers() async {
        let bus = EventBus()
        final class Shared: Sendable {
            let stop = Atomic<Bool>(false)
            let published = Atomic<Int>(0)
            let peakRetired = Atomic<Int>(0)
        }
        let shared = Shared()
        let before = Witness.alive.load(ordering: .relaxed)
        await withTaskGroup(of: Void.self) { group in
            for p in 0..<2 {
                group.addTask {
                    var i = 0
                    while !shared.stop.load(ordering: .relaxed) {
                        bus.publish(Ping(publisher: p, sequence: i))
                        i += 1
                        // The pool may have as few threads as publishers: let the churning task run too.
                        if i % 256 == 0 { await Task.yield() }
                    }
                    shared.published.add(i, ordering: .relaxed)
                }
            }
            group.addTask {
                for cycle in 0..<10_000 {
                    let witness = Witness()
                    let token =
                        cycle % 3 == 0
                        ? bus.subscribe(to: Ping.self) { _ in witness.touch() }
                        : cycle % 3 == 1
                            ? bus.subscribe(named: "test.ping", as: MyPing.self) { _, _ in witness.touch() }
                            : bus.subscribeAll { _ in witness.touch() }
                    token.cancel()
                    shared.peakRetired.max(bus.retiredSnapshotCount, ordering: .relaxed)
                }
                shared.stop.store(true, ordering: .relaxed)
            }
        }
        // One more change after publishing stopped lets the bus free what the last publishes could still see.
        bus.subscribe(to: Pong.self) { _ in }.cancel()
        bus.subscribe(to: Pong.self) { _ in }.cancel()
        #expect(shared.published.load(ordering: .relaxed) > 0)
        #expect(bus.subscriberCount == 0)
        #expect(bus.retiredSnapshotCount <= 2)
        #expect(Witness.alive.load(ordering: .relaxed) == before)
        // Memory stays flat during the churn: retired lists never pile up (without reclamation: up to 20,000).
        let peak = shared.peakRetired.load(ordering: .relaxed)
        #expect(peak < 1000, "peak retired snapshots: \(peak)")
    }
}
