import EventLog
import Foundation
import SuiteCore
import SuitePluginKit
import Synchronization

/// The event bus against Foundation's NotificationCenter and a bare AsyncStream; the C ABI against in-process calls.
enum BusBenchmarks {
    struct Tick: BusEvent {
        var name: String { "bench.tick" }
        var payload: Int
    }

    /// The handlers' work on both sides: add to a plain memory cell (no class-property exclusivity checks, no atomics),
    /// so the benchmark measures delivery rather than the handler.
    struct Counter: @unchecked Sendable {
        let cell: UnsafeMutablePointer<Int>
        init() {
            cell = .allocate(capacity: 1)
            cell.initialize(to: 0)
        }
        var value: Int { cell.pointee }
        func add(_ n: Int) { cell.pointee &+= n }
    }

    static func run(scale: Double) async throws -> [BenchResult] {
        let n = max(1000, Int(1_000_000 * scale))
        var results: [BenchResult] = []
        for subscribers in [1, 4] {
            // Alternate ours and the peer round by round so both see the same machine load; keep each one's best.
            var ours = 0.0
            var peer = 0.0
            for _ in 0..<7 {
                ours = max(ours, syncBus(events: n, subscribers: subscribers))
                peer = max(peer, notificationCenter(events: n / 4, subscribers: subscribers))
            }
            results.append(
                BenchResult(
                    name: "sync delivery, \(subscribers) subscriber(s)", ours: ours, peer: peer,
                    peerName: "NotificationCenter post/observe", unit: "deliveries/s", target: "≥ 10"))
        }
        let streamN = max(1000, Int(300_000 * scale))
        var streamOurs = 0.0
        var streamPeer = 0.0
        for _ in 0..<5 {
            streamOurs = max(streamOurs, await busStream(events: streamN))
            streamPeer = max(streamPeer, await bareStream(events: streamN))
        }
        results.append(
            BenchResult(
                name: "AsyncStream subscription", ours: streamOurs, peer: streamPeer,
                peerName: "bare AsyncStream continuation", unit: "events/s", target: "≥ 0.7"))
        results += namedSubscriptions(events: max(1000, Int(300_000 * scale)))
        results += try await observerABI(events: max(1000, Int(100_000 * scale)))
        results += try await PluginABIBenchmarks.run(scale: scale)
        return results
    }

    /// The subscriber's own view of `bench.tick`'s payload (an Int), as a module that does not import the publisher
    /// would declare it.
    struct OwnTick: Decodable, Sendable {
        let value: Int
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Int.self) }
    }

    /// A name-based subscription beside a typed one: passing the publisher's own payload type through, and decoding
    /// into the subscriber's own type (JSON per publish).
    static func namedSubscriptions(events: Int) -> [BenchResult] {
        func rate(_ subscribe: (EventBus, Counter) -> Void, events: Int) -> Double {
            let bus = EventBus()
            let counter = Counter()
            subscribe(bus, counter)
            var best = 0.0
            for _ in 0..<3 {
                let start = ContinuousClock.now
                for i in 0..<events { bus.publish(Tick(payload: i)) }
                best = max(best, Double(events) / ((ContinuousClock.now - start) / .seconds(1)))
            }
            if counter.value == 42 { print("") }
            return best
        }
        var typed = 0.0
        var sameType = 0.0
        var ownType = 0.0
        for _ in 0..<3 {
            typed = max(typed, rate({ bus, c in bus.subscribe(to: Tick.self) { c.add($0.payload) } }, events: events))
            sameType = max(
                sameType,
                rate(
                    { bus, c in bus.subscribe(named: "bench.tick", as: Int.self) { n, _ in c.add(n) } }, events: events)
            )
            ownType = max(
                ownType,
                rate(
                    { bus, c in bus.subscribe(named: "bench.tick", as: OwnTick.self) { t, _ in c.add(t.value) } },
                    events: events / 20))
        }
        return [
            BenchResult(
                name: "subscription by name, publisher's payload type", ours: sameType, peer: typed,
                peerName: "typed subscription", unit: "deliveries/s"),
            BenchResult(
                name: "subscription by name, decoded into the subscriber's type", ours: ownType, peer: typed,
                peerName: "typed subscription", unit: "deliveries/s"),
        ]
    }

    static func syncBus(events: Int, subscribers: Int) -> Double {
        let bus = EventBus()
        let counter = Counter()
        for _ in 0..<subscribers { bus.subscribe(to: Tick.self) { counter.add($0.payload) } }
        var rate = 0.0
        for _ in 0..<2 {
            let start = ContinuousClock.now
            for i in 0..<events { bus.publish(Tick(payload: i)) }
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            rate = max(rate, Double(events * subscribers) / elapsed)
        }
        if counter.value == 42 { print("") }  // keep the work observable
        return rate
    }

    static func notificationCenter(events: Int, subscribers: Int) -> Double {
        let center = NotificationCenter()
        let name = Notification.Name("bench.tick")
        let counter = Counter()
        var tokens: [any NSObjectProtocol] = []
        for _ in 0..<subscribers {
            tokens.append(center.addObserver(forName: name, object: nil, queue: nil) { _ in counter.add(1) })
        }
        var rate = 0.0
        for _ in 0..<2 {
            let start = ContinuousClock.now
            for _ in 0..<events { center.post(name: name, object: nil) }
            let elapsed = (ContinuousClock.now - start) / .seconds(1)
            rate = max(rate, Double(events * subscribers) / elapsed)
        }
        for token in tokens { center.removeObserver(token) }
        return rate
    }

    static func busStream(events: Int) async -> Double {
        await bestRate(operations: events, repeats: 1) {
            let bus = EventBus()
            let stream = bus.stream(of: Tick.self, bufferSize: events)
            let consumer = Task {
                var received = 0
                for await _ in stream {
                    received += 1
                    if received == events { break }
                }
                return received
            }
            for i in 0..<events { bus.publish(Tick(payload: i)) }
            _ = await consumer.value
        }
    }

    static func bareStream(events: Int) async -> Double {
        await bestRate(operations: events, repeats: 1) {
            let (stream, continuation) = AsyncStream<Tick>.makeStream(bufferingPolicy: .bufferingOldest(events))
            let consumer = Task {
                var received = 0
                for await _ in stream {
                    received += 1
                    if received == events { break }
                }
                return received
            }
            for i in 0..<events { continuation.yield(Tick(payload: i)) }
            _ = await consumer.value
        }
    }

    /// The same EventLog observer (writing to /dev/null) called in-process and through the C ABI from its `.so`.
    static func observerABI(events: Int) async throws -> [BenchResult] {
        let options: JSONValue = ["path": "/dev/null"]
        let inProcess = try EventLogObserver(options: options)
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let plugin = try PluginLoader(searchDirectories: [binDirectory]).load("EventLog")
        let viaABI = PluginObserverEngine(
            handle: try plugin.makeEngine(kind: "observer", name: "eventlog", options: options))
        let event = ObservedEvent(name: "bench.tick", payloadJSON: #"{"n":1}"#, time: Date())
        let batch = [ObservedEvent](repeating: event, count: 100)

        func perEvent(_ engine: any ObserverEngine) async throws -> Double {
            try await bestRate(operations: events) {
                for _ in 0..<events { try await engine.receive([event]) }
            }
        }
        func batched(_ engine: any ObserverEngine) async throws -> Double {
            try await bestRate(operations: events) {
                for _ in 0..<(events / batch.count) { try await engine.receive(batch) }
            }
        }
        return [
            BenchResult(
                name: "observer call via C ABI, per event", ours: try await perEvent(viaABI),
                peer: try await perEvent(inProcess), peerName: "same observer in-process", unit: "events/s"),
            BenchResult(
                name: "observer call via C ABI, batches of 100", ours: try await batched(viaABI),
                peer: try await batched(inProcess), peerName: "same observer in-process", unit: "events/s"),
        ]
    }
}
