/// An ``AnalyticsEvent`` built from a name and parameters at run time, for bridges (the CLI, the bus) where no enum
/// exists. App code should prefer its own typed enum.
public struct NamedAnalyticsEvent: AnalyticsEvent, Hashable, Codable {
    /// The event's name.
    public var name: String
    /// The event's parameters.
    public var parameters: [String: String]

    /// Creates an event named `name` with `parameters`.
    public init(_ name: String, parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }
}
