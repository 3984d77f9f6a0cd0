package import Analytics
package import SuiteCore

/// The Analytics module's `sqlite` engine (the default): ``Analytics/SQLiteAnalyticsEngine``, the events in a file
/// that `suite analytics` reports read (option `path`, default `analytics.sqlite` in the data directory).
package struct SQLiteAnalyticsEngineDescription: EngineDescription {
    /// The decoded options: the `path` option as written.
    package struct Options: Sendable {
        /// The `path` option as written (resolved against the data directory when the engine is made).
        package var path: JSONValue?
    }

    /// Creates the description.
    package init() {}

    package var name: String { "sqlite" }
    package var optionKeys: [String] { ["path"] }

    package func options(_ options: EngineOptions) throws -> Options { Options(path: options["path"]) }

    package func make(_ options: Options, in context: SuiteContext) async throws -> any AnalyticsEngine {
        try open(options, in: context)
    }

    func open(_ options: Options, in context: SuiteContext) throws -> SQLiteAnalyticsEngine {
        try context.ensureDataDirectory()
        return try SQLiteAnalyticsEngine(path: context.dataFile(options.path, default: "analytics.sqlite"))
    }
}

extension ConfiguredEngine where Engine == any AnalyticsEngine {
    /// The events file for reports (`suite analytics …`, the console's usage page), when this is the SQLite engine.
    func reportingEngine(in context: SuiteContext) throws -> SQLiteAnalyticsEngine? {
        guard let options = options(as: SQLiteAnalyticsEngineDescription.Options.self) else { return nil }
        return try SQLiteAnalyticsEngineDescription().open(options, in: context)
    }
}
