package import Analytics

/// The Analytics module's `noop` engine: ``Analytics/NoOpAnalyticsEngine``, every event accepted and dropped (no
/// options).
package struct NoOpAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    package init() {}

    package var name: String { "noop" }
    package var optionKeys: [String] { [] }

    package func options(_ options: EngineOptions) throws {}

    package func make(_ options: Void, in context: SuiteContext) async throws -> any AnalyticsEngine {
        NoOpAnalyticsEngine()
    }
}
