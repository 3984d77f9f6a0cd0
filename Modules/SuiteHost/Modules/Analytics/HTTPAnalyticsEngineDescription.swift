package import Analytics
import SuiteCore
import SuiteHTTPNIO

/// The Analytics module's `http` engine: ``Analytics/HTTPAnalyticsEngine``, batches posted to a collector on
/// AsyncHTTPClient.
///
/// ```yaml
/// analytics:
///   engines:
///     - {engine: http, options: {url: "https://collect.example.com/v1/batch", batch-size: 100, interval: 5,
///                                headers: {Authorization: "Bearer …"}, gzip: true, timeout: 30}}
/// ```
///
/// `interval` (seconds) also shortens the manager's delivery interval when it is below it.
package struct HTTPAnalyticsEngineDescription: EngineDescription {
    /// The decoded options.
    package struct Options: Sendable {
        /// The engine's options.
        package var engine: HTTPAnalyticsEngine.Options
        /// How often the manager delivers, when given.
        package var interval: Duration?
    }

    /// Creates the description.
    package init() {}

    package var name: String { "http" }
    package var optionKeys: [String] { ["url", "batch-size", "interval", "headers", "gzip", "timeout"] }

    package func options(_ options: EngineOptions) throws -> Options {
        do throws(AnalyticsError) {
            return try decode(options.values)
        } catch {
            throw options.section.error(options.path, error.message, hint: error.hint)
        }
    }

    private func decode(_ options: [String: JSONValue]) throws(AnalyticsError) -> Options {
        guard let url = options["url"]?.stringValue else {
            throw AnalyticsError(
                .invalidConfiguration, "the http engine needs a url",
                hint: "add options: {url: \"https://collect.example.com/v1/batch\"}")
        }
        var result = HTTPAnalyticsEngine.Options(url: url)
        if let value = options["batch-size"] {
            guard let size = value.intValue, size >= 1, size <= 10_000 else {
                throw AnalyticsError(.invalidConfiguration, "batch-size must be a whole number from 1 to 10000")
            }
            result.batchSize = Int(size)
        }
        for key in ["interval", "timeout"] {
            if let value = options[key], !(value.numberValue.map { $0 > 0 && $0 <= 86_400 } ?? false) {
                throw AnalyticsError(.invalidConfiguration, "\(key) must be a number of seconds above 0")
            }
        }
        if let timeout = options["timeout"]?.numberValue { result.timeout = .milliseconds(timeout * 1_000) }
        if let value = options["gzip"] {
            guard let flag = value.boolValue else {
                throw AnalyticsError(.invalidConfiguration, "gzip must be true or false")
            }
            result.gzip = flag
        }
        if let value = options["headers"] {
            guard let map = value.objectValue, map.values.allSatisfy({ $0.stringValue != nil }) else {
                throw AnalyticsError(
                    .invalidConfiguration, "headers must be a map of header names to strings",
                    hint: "e.g. headers: {Authorization: \"Bearer …\"}")
            }
            result.headers = map.compactMapValues(\.stringValue)
        }
        try HTTPAnalyticsEngine.validate(result)
        return Options(engine: result, interval: options["interval"]?.numberValue.map { .milliseconds($0 * 1_000) })
    }

    package func make(_ options: Options, in context: SuiteContext) async throws -> any AnalyticsEngine {
        // AsyncHTTPClient retries a refused connection until the connect timeout: bound it by the request's.
        try HTTPAnalyticsEngine(
            options: options.engine,
            transport: AsyncHTTPClientTransport(
                timeout: options.engine.timeout, connectTimeout: min(options.engine.timeout, .seconds(5))))
    }

    package func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus {
        ModuleStatus(engine: name, location: options.engine.url)
    }

    /// Shuts the engine's HTTP client down.
    package func close(_ engine: any AnalyticsEngine) async throws {
        try await (engine as? HTTPAnalyticsEngine)?.shutdown()
    }
}

extension ConfiguredEngine where Engine == any AnalyticsEngine {
    /// How often the manager should deliver for this engine, if it asks (the http engine's `interval`).
    var deliveryInterval: Duration? { options(as: HTTPAnalyticsEngineDescription.Options.self)?.interval }
}
