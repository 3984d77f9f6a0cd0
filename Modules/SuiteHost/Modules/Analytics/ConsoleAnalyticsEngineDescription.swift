package import Analytics

/// The Analytics module's `console` engine: ``Analytics/ConsoleAnalyticsEngine``, each event printed (no options).
package struct ConsoleAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    package init() {}

    package var name: String { "console" }
    package var optionKeys: [String] { [] }

    package func options(_ options: EngineOptions) throws {}

    package func make(_ options: Void, in context: SuiteContext) async throws -> any AnalyticsEngine {
        ConsoleAnalyticsEngine()
    }
}
