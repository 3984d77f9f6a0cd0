public import Analytics

/// The Analytics module's `noop` engine: ``Analytics/NoOpAnalyticsEngine``, every event accepted and dropped (no
/// options).
public struct NoOpAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    public init() {}

    public var name: String { "noop" }
    public var optionKeys: [String] { [] }

    public func options(_ options: EngineOptions) throws {}

    public func make(_ options: Void, in context: SuiteContext) async throws -> any AnalyticsEngine {
        NoOpAnalyticsEngine()
    }
}
