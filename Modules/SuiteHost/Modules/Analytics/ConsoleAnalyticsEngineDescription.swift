public import Analytics

/// The Analytics module's `console` engine: ``Analytics/ConsoleAnalyticsEngine``, each event printed (no options).
public struct ConsoleAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    public init() {}

    public var name: String { "console" }
    public var optionKeys: [String] { [] }

    public func options(_ options: EngineOptions) throws {}

    public func make(_ options: Void, in context: SuiteContext) async throws -> any AnalyticsEngine {
        ConsoleAnalyticsEngine()
    }
}
