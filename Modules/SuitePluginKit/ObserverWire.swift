import Foundation
public import SuiteCore

/// The JSON payloads of the observer kind's operations, shared by the host (encoding) and plugins (decoding).
///
/// `event` carries one object `{"name":…,"payload":…,"time":…}`; `events` an array of them.
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
        return ObservedEvent(name: name, payloadJSON: payload.jsonString, time: time)
    }
}

/// Serves the observer kind's operations with an ordinary ``ObserverEngine``.
struct ObserverOperationHandler: PluginOperationHandler {
    let engine: any ObserverEngine

    func handle(operation: String, request: [UInt8]) async throws -> [UInt8] {
        switch operation {
        case "event", "events":
            try await engine.receive(try ObserverWire.decode(request))
            return []
        case "flush":
            try await engine.flush()
            return []
        default:
            throw PluginOperationError.unsupported(operation)
        }
    }
}
