package import Analytics
package import SuiteCore

/// The Analytics module's `jsonl` engine: ``Analytics/JSONLinesAnalyticsEngine``, one JSON object per event appended to
/// a file (option `path`, default `analytics.jsonl` in the data directory).
package struct JSONLinesAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    package init() {}

    package var name: String { "jsonl" }
    package var optionKeys: [String] { ["path"] }

    /// The `path` option as written.
    package func options(_ options: EngineOptions) throws -> JSONValue? { options["path"] }

    package func make(_ path: JSONValue?, in context: SuiteContext) async throws -> any AnalyticsEngine {
        try context.ensureDataDirectory()
        return JSONLinesAnalyticsEngine(path: context.dataFile(path, default: "analytics.jsonl"))
    }

    package func status(_ path: JSONValue?, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(engine: name, location: context.dataFile(path, default: "analytics.jsonl"))
    }
}
