public import Foundation

/// A bus event as observers see it: its envelope (name, time, source, sequence) and its payload as JSON text.
public struct ObservedEvent: Sendable, Hashable {
    /// The event's stable name.
    public var name: String
    /// The payload encoded as compact JSON.
    public var payloadJSON: String
    /// When the event was published.
    public var time: Date
    /// The publishing module (``EventEnvelope/source``); empty when unknown.
    public var source: String
    /// The publisher's sequence number (``EventEnvelope/sequence``); 0 when unknown.
    public var sequence: UInt64

    /// Creates an observed event from its parts.
    public init(name: String, payloadJSON: String, time: Date, source: String = "", sequence: UInt64 = 0) {
        self.name = name
        self.payloadJSON = payloadJSON
        self.time = time
        self.source = source
        self.sequence = sequence
    }

    /// Captures `event` as delivered with `envelope`, encoding its payload as JSON.
    public init(_ event: any BusEvent, envelope: EventEnvelope) throws {
        try self.init(event, time: envelope.time)
        self.source = envelope.source
        self.sequence = envelope.sequence
    }

    /// Captures `event`, encoding its payload as JSON.
    public init(_ event: some BusEvent, time: Date) throws {
        self.name = event.name
        self.time = time
        self.source = ""
        self.sequence = 0
        if let json = event.payload as? JSONValue {
            self.payloadJSON = json.jsonString
        } else {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                encoder.dateEncodingStrategy = .iso8601
                self.payloadJSON = String(decoding: try encoder.encode(event.payload), as: UTF8.self)
            } catch {
                throw SuiteError(
                    .invalidEvent, "cannot encode the payload of event '\(event.name)' as JSON", underlying: error)
            }
        }
    }

    /// The event as one JSON object: `{"name":…,"payload":…,"time":…}` (time in RFC 3339 with milliseconds), then
    /// `"source":…,"sequence":…` when the source is known.
    public var jsonLine: String {
        var out = "{\"name\":"
        JSONValue.appendQuoted(name, to: &out)
        out += ",\"payload\":"
        out += payloadJSON
        out += ",\"time\":\""
        out += ObservedEvent.formatTime(time)
        out += "\""
        if !source.isEmpty {
            out += ",\"source\":"
            JSONValue.appendQuoted(source, to: &out)
            out += ",\"sequence\":\(sequence)"
        }
        out += "}"
        return out
    }

    /// Formats `date` as RFC 3339 in UTC with milliseconds, e.g. `2026-11-22T03:34:14.123Z`.
    public static func formatTime(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true)
                .timeSeparator(.colon).timeZone(separator: .omitted))
    }
}

/// An engine that is told about bus events: the `observer` engine kind, the first kind plugins can provide.
///
/// The host attaches each configured observer to the bus and calls ``receive(_:)`` with events in publish order,
/// one call at a time, then ``flush()`` before shutting down.
public protocol ObserverEngine: Sendable {
    /// Takes a batch of events, in publish order.
    func receive(_ events: [ObservedEvent]) async throws
    /// Makes everything received so far durable (or delivered).
    func flush() async throws
}
