public import Foundation

/// What travels with every event: its name, when it was published, by which module, and that publisher's sequence.
public struct EventEnvelope: Sendable, Hashable, Codable {
    /// The event's stable name, e.g. `documents.changed`.
    public var name: String
    /// When it was published (the bus's clock).
    public var time: Date
    /// The publishing module, e.g. `documents` (`app` for ``EventBus/publish(_:)``).
    public var source: String
    /// The publisher's own count of its events, from 1; a gap means nothing on the bus (it is per publisher).
    public var sequence: UInt64

    /// Creates an envelope.
    public init(name: String, time: Date, source: String, sequence: UInt64) {
        self.name = name
        self.time = time
        self.source = source
        self.sequence = sequence
    }
}

/// A payload delivered to a name-based stream, with its envelope.
public struct ReceivedEvent<Payload: Sendable>: Sendable {
    /// The payload, decoded into the subscriber's type.
    public var payload: Payload
    /// The event's envelope.
    public var envelope: EventEnvelope
}
