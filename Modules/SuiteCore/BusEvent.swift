/// Something that happened, published on an ``EventBus``.
///
/// An event is a `Sendable` value with a stable `name` (used in logs and by plugins, e.g. `documents.changed`)
/// and a `Codable` payload (what plugins receive as JSON).
///
/// ```swift
/// struct UserSignedIn: BusEvent {
///     var name: String { "auth.signed-in" }
///     var payload: Payload
///     struct Payload: Codable, Sendable { var method: String }
/// }
/// ```
public protocol BusEvent: Sendable {
    /// The payload's type.
    associatedtype Payload: Codable & Sendable
    /// The event's stable name, dot-separated, module first.
    var name: String { get }
    /// What the event carries.
    var payload: Payload { get }
}

/// An event whose name is only known at run time, with a JSON payload: what `suite events emit` publishes.
public struct GenericEvent: BusEvent {
    public var name: String
    public var payload: JSONValue

    /// Creates an event named `name` carrying `payload`.
    public init(name: String, payload: JSONValue = .object([:])) {
        self.name = name
        self.payload = payload
    }
}
