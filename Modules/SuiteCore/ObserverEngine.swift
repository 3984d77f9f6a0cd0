public import Foundation

/// A bus event as observers see it: its name, its payload as JSON text and when it was published.
public struct ObservedEvent: Sendable, Hashable {
    /// The event's stable name.
    public var name: String
    /// The payload encoded as compact JSON.
    public var payloadJSON: String
    /// When the event was published.
    public var time: Date

    /// Creates an observed event from its parts.
    public init(name: String, payloadJSON: String, time: Date) {
        self.name = name
        self.payloadJSON = payloadJSON
        self.time = time
    }

    /// Captures `event`, encoding its payload as JSON.
    public init(_ event: some BusEvent, time: Date) throws {
        self.name = event.name
        self.time = time
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

    /// The event as one JSON object: `{"name":…,"payload":…,"time":…}` (time in RFC 3339 with milliseconds).
    public var jsonLine: String {
        var out = "{\"name\":"
        JSONValue.appendQuoted(name, to: &out)
        out += ",\"payload\":"
        out += payloadJSON
        out += ",\"time\":\""
        out += ObservedEvent.formatTime(time)
        out += "\"}"
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
