import Foundation
public import SuiteCore

/// The JSON payloads of the observer kind's operations, shared by the host (encoding) and plugins (decoding).
///
/// `event` carries one object `{"name":…,"payload":…,"time":…,"source":…,"sequence":…}` (the envelope; `source` and
/// `sequence` are absent when unknown); `events` an array of them.
public enum ObserverWire {
    /// Encodes one event as the `event` request.
    public static func encode(_ event: ObservedEvent) -> [UInt8] {
        Array(event.jsonLine.utf8)
    }

    /// Encodes events as the `events` request.
    public static func encode(_ events: [ObservedEvent]) -> [UInt8] {
        var out = "["
        for (i, event) in events.enumerated() {
            if i > 0 { out += "," }
            out += event.jsonLine
        }
        out += "]"
        return Array(out.utf8)
    }

    /// Decodes an `event` or `events` request.
    public static func decode(_ bytes: [UInt8]) throws -> [ObservedEvent] {
        let json = try bytes.withUnsafeBytes { try JSONValue(parsing: $0) }
        switch json {
        case .array(let items): return try items.map(event(from:))
        case .object: return [try event(from: json)]
        default: throw PluginOperationError.invalid("an observer request must be an event object or a list of them")
        }
    }

    static func event(from json: JSONValue) throws -> ObservedEvent {
        guard let name = json["name"]?.stringValue else {
            throw PluginOperationError.invalid("event without a string 'name'")
        }
        let payload = json["payload"] ?? .null
        var time = Date()
        if let text = json["time"]?.stringValue {
            guard let micros = RFC3339.parse(text) else {
                throw PluginOperationError.invalid("event '\(name)' has an invalid time '\(text)'")
            }
            time = Date(timeIntervalSince1970: Double(micros) / 1_000_000)
        }
        let sequence = json["sequence"]?.intValue.flatMap { UInt64(exactly: $0) } ?? 0
        return ObservedEvent(
            name: name, payloadJSON: payload.jsonString, time: time, source: json["source"]?.stringValue ?? "",
            sequence: sequence)
    }
}

/// The `observer` engine kind: receives bus events (`event`, `events`, `flush`; JSON payloads, empty responses).
public enum ObserverEngineKind: PluginEngineKind {
    /// `"observer"`.
    public static let name = "observer"
}

/// A request of the `observer` kind: one per `ObserverEngine` call.
public enum ObserverRequest: PluginEngineRequest, Hashable {
    /// The kind.
    public typealias Kind = ObserverEngineKind
    /// Observer operations answer nothing.
    public typealias Response = Void

    /// One event (operation `event`).
    case event(ObservedEvent)
    /// Several events, in publish order (operation `events`).
    case events([ObservedEvent])
    /// `ObserverEngine/flush()` (operation `flush`).
    case flush

    /// `event`, `events` and `flush`.
    public static let operationNames = ["event", "events", "flush"]

    /// The operation this request is sent as.
    public var operationName: String {
        switch self {
        case .event: "event"
        case .events: "events"
        case .flush: "flush"
        }
    }

    /// The JSON payload: an event object, an array of them, or nothing.
    public func encodePayload() -> [UInt8] {
        switch self {
        case .event(let event): ObserverWire.encode(event)
        case .events(let events): ObserverWire.encode(events)
        case .flush: []
        }
    }

    /// Reads an `event`, `events` or `flush` request; `event` and `events` each accept an object or an array.
    public static func decodePayload(operation: String, from bytes: UnsafeRawBufferPointer) throws -> ObserverRequest {
        switch operation {
        case "flush": return .flush
        case "event", "events":
            let events = try ObserverWire.decode(Array(bytes))
            return operation == "event" && events.count == 1 ? .event(events[0]) : .events(events)
        default: throw PluginOperationError.unsupported(operation)
        }
    }

    /// Nothing.
    public static func encode(response: Void) -> [UInt8] { [] }

    /// Ignores the response bytes: observer operations answer nothing.
    public func decodeResponse(from bytes: UnsafeRawBufferPointer) {}
}

extension PluginRequestHandler where Kind == ObserverEngineKind {
    /// Serves the observer kind with an ordinary ``ObserverEngine``.
    init(observer engine: any ObserverEngine) {
        self = PluginRequestHandler().on(ObserverRequest.self) { request in
            switch request {
            case .event(let event): try await engine.receive([event])
            case .events(let events): try await engine.receive(events)
            case .flush: try await engine.flush()
            }
        }
    }
}
