public import Analytics
public import SuiteCore

/// The Analytics module's `jsonl` engine: ``Analytics/JSONLinesAnalyticsEngine``, one JSON object per event appended to
/// a file (option `path`, default `analytics.jsonl` in the data directory).
public struct JSONLinesAnalyticsEngineDescription: EngineDescription {
    /// Creates the description.
    public init() {}

    public var name: String { "jsonl" }
    public var optionKeys: [String] { ["path"] }

    /// The `path` option as written.
    public func options(_ options: EngineOptions) throws -> JSONValue? { options["path"] }

    public func make(_ path: JSONValue?, in context: SuiteContext) async throws -> any AnalyticsEngine {
        try context.ensureDataDirectory()
        return JSONLinesAnalyticsEngine(path: context.dataFile(path, default: "analytics.jsonl"))
    }

    public func status(_ path: JSONValue?, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(engine: name, location: context.dataFile(path, default: "analytics.jsonl"))
    }
}
