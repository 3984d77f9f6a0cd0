public import Synchronization

/// Publishes events on a bus under one source name, numbering them.
///
/// ```swift
/// let events = bus.publisher(source: "loyalty")
/// events.publish(PointsRedeemed(payload: .init(user: "u1", points: 10)))   // envelope: source loyalty, sequence 1
/// ```
public final class EventPublisher: Sendable {
    /// The source name stamped on this publisher's envelopes.
    public let source: String
    /// The bus it publishes on (kept alive by the publisher).
    @usableFromInline let bus: EventBus
    @usableFromInline let sequence = Atomic<UInt64>(0)

    init(source: String, bus: EventBus) {
        self.source = source
        self.bus = bus
    }

    /// How many events this publisher has published.
    public var publishedCount: UInt64 { sequence.load(ordering: .relaxed) }

    /// Delivers `event` to every subscriber on the calling thread; see ``EventBus``.
    @inlinable
    public func publish<E: BusEvent>(_ event: E) {
        bus.deliver(event, source: source, sequence: sequence.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}

/// A payload encoded to JSON at most once per publish, for the name-based subscribers that need another type.
