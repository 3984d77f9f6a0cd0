package import Analytics
import AnalyticsPluginSupport
import Foundation
import Logging
package import ServiceLifecycle
package import SuiteCore
import SuitePluginKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The Analytics module as the host sees it: the `analytics` section, its engines (several at once are a
/// multiplex), the persisted queue, and the recording of other modules' bus events.
///
/// ```yaml
/// analytics:
///   engines:                        # default: [{engine: sqlite}]
///     - {engine: sqlite, options: {path: analytics.sqlite}}
///     - {engine: http, options: {url: "https://collect.example.com/v1/batch", batch-size: 100, interval: 5,
///                                headers: {Authorization: "Bearer …"}, gzip: true, timeout: 30}}
///     - {engine: jsonl, options: {path: events.jsonl}}
///   queue-path: analytics-queue.sqlite
///   context: {app_version: "2.4.1"}
///   privacy: {email: hash, ip: drop}   # keep, hash (salted SHA-256; salt in analytics.salt) or drop, per key
///   sampling: {rate: 1, events: {scroll: 0.1}}
///   batch-size: 100
///   record: [documents.cost, cache., sync., work.]   # bus events recorded; [] records none
///   prices: {read: 0.06, write: 0.18, delete: 0.02}  # per 100,000 operations, for `suite analytics cost`
/// ```
package struct AnalyticsModule: SuiteModule {
    /// The engines: `sqlite` (default), `http`, `jsonl`, `console`, `noop`, then `analytics` engines from plugins
    /// (e.g. `prometheus` from Plugins/AnalyticsPrometheus).
    package var engines: EngineRegistry<any AnalyticsEngine>

    /// The module with its built-in engines.
    package init() {
        engines = EngineRegistry(
            module: "analytics",
            descriptions: [
                SQLiteAnalyticsEngineDescription(), HTTPAnalyticsEngineDescription(),
                JSONLinesAnalyticsEngineDescription(), ConsoleAnalyticsEngineDescription(),
                NoOpAnalyticsEngineDescription(),
            ],
            plugins: PluginEngines(kind: EngineKind.analytics) { handle in PluginAnalyticsEngine(handle: handle) })
    }

    /// The module with `engines` (a test's or an app's own engine added to the built-in ones).
    package init(engines: EngineRegistry<any AnalyticsEngine>) {
        self.engines = engines
    }

    package var name: String { "Analytics" }
    package var configurationKey: String { "analytics" }
    package var builtInEngines: [String] { engines.names }

    /// The section's settings.
    package struct Settings: Sendable {
        /// The engines, in order, their options decoded.
        package var engines: [ConfiguredEngine<any AnalyticsEngine>]
        /// The queue file, as written (relative to the data directory) or absolute.
        package var queuePath: String
        /// The manager's configuration (the privacy salt is read when the manager opens).
        package var configuration: AnalyticsConfiguration
        /// The bus event names (or prefixes ending in `.`) recorded.
        package var record: [String]
        /// Prices per 100,000 document reads, writes and deletes.
        package var prices: (read: Double, write: Double, delete: Double)
    }

    /// Decodes and checks the `analytics` section.
    package func settings(_ section: ConfigurationSection, in configuration: SuiteConfiguration) throws -> Settings {
        let object = try section.object()
        try section.checkKeys(
            object,
            known: ["engines", "queue-path", "context", "privacy", "sampling", "batch-size", "record", "prices"])
        var selections: [ConfiguredEngine<any AnalyticsEngine>] = []
        if let list = object["engines"] {
            let hint = "e.g. engines: [{engine: sqlite}, {engine: http, options: {url: …}}]"
            guard let items = list.arrayValue, !items.isEmpty else {
                throw section.error("analytics.engines", "must be a non-empty list of engines", hint: hint)
            }
            for (index, item) in items.enumerated() {
                let key = "analytics.engines[\(index)]"
                guard let map = item.objectValue else { throw section.error(key, "must be a map", hint: hint) }
                try section.checkKeys(map, at: key, known: ["engine", "options"])
                selections.append(try engines.configure(map, at: key, in: section))
            }
        } else {
            selections = [try engines.configure([:], at: "analytics", in: section)]
        }
        var configuration = AnalyticsConfiguration()
        configuration.sessions.recordsEvents = false  // a `suite` command is not an app session: no session events
        configuration.context = try Self.strings(object["context"], at: "analytics.context", section)
        for (key, rule) in try Self.strings(object["privacy"], at: "analytics.privacy", section) {
            guard let parsed = AnalyticsPrivacyPolicy.Rule(rawValue: rule) else {
                throw section.error(
                    "analytics.privacy.\(key)", "must be keep, hash or drop, not '\(rule)'",
                    hint: Suggestion.didYouMean(
                        rule, among: AnalyticsPrivacyPolicy.Rule.allCases.map(\.rawValue), what: "rules"))
            }
            configuration.privacy.rules[key] = parsed
        }
        configuration.sampling = try Self.sampling(object["sampling"], section)
        if let value = object["batch-size"] {
            guard let size = value.intValue, size >= 1, size <= 10_000 else {
                throw section.error("analytics.batch-size", "must be a whole number from 1 to 10000")
            }
            configuration.batchSize = Int(size)
        }
        for interval in selections.compactMap(\.deliveryInterval) {
            configuration.deliveryInterval = min(configuration.deliveryInterval, interval)
        }
        var record = AnalyticsBusRecorder.defaultPrefixes
        if let value = object["record"] {
            guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count
            else {
                throw section.error(
                    "analytics.record", "must be a list of event names or prefixes",
                    hint: "e.g. record: [documents.cost, cache.]")
            }
            record = names
        }
        var prices = (read: 0.06, write: 0.18, delete: 0.02)
        if let value = object["prices"] {
            guard let map = value.objectValue else {
                throw section.error("analytics.prices", "must be a map, e.g. {read: 0.06, write: 0.18, delete: 0.02}")
            }
            try section.checkKeys(map, at: "analytics.prices", known: ["read", "write", "delete"])
            for (key, price) in map {
                guard let number = price.numberValue, number >= 0 else {
                    throw section.error("analytics.prices.\(key)", "must be a price ≥ 0 per 100,000 operations")
                }
                switch key {
                case "read": prices.read = number
                case "write": prices.write = number
                default: prices.delete = number
                }
            }
        }
        return Settings(
            engines: selections,
            queuePath: object["queue-path"]?.stringValue ?? "analytics-queue.sqlite",
            configuration: configuration, record: record, prices: prices)
    }

    static func strings(_ value: JSONValue?, at key: String, _ section: ConfigurationSection) throws -> [String: String]
    {
        guard let value else { return [:] }
        guard let map = value.objectValue else { throw section.error(key, "must be a map of names to strings") }
        var result: [String: String] = [:]
        for (name, item) in map {
            switch item {
            case .string(let text): result[name] = text
            case .int(let number): result[name] = "\(number)"
            case .double(let number): result[name] = JSONValue.format(number)
            case .bool(let flag): result[name] = "\(flag)"
            default: throw section.error("\(key).\(name)", "must be a string, not \(item.typeDescription)")
            }
        }
        return result
    }

    static func sampling(_ value: JSONValue?, _ section: ConfigurationSection) throws -> AnalyticsSampling {
        guard let value else { return AnalyticsSampling() }
        guard let map = value.objectValue else {
            throw section.error("analytics.sampling", "must be a map, e.g. {rate: 1, events: {scroll: 0.1}}")
        }
        try section.checkKeys(map, at: "analytics.sampling", known: ["rate", "events"])
        func rate(_ value: JSONValue, _ key: String) throws -> Double {
            guard let number = value.numberValue, number > 0, number <= 1 else {
                throw section.error(key, "must be a rate above 0 and at most 1, not \(value.jsonString)")
            }
            return number
        }
        var sampling = AnalyticsSampling(rate: try map["rate"].map { try rate($0, "analytics.sampling.rate") } ?? 1)
        if let events = map["events"] {
            guard let rates = events.objectValue else {
                throw section.error("analytics.sampling.events", "must be a map of event names to rates")
            }
            for (name, value) in rates { sampling.rates[name] = try rate(value, "analytics.sampling.events.\(name)") }
        }
        return sampling
    }

    package func status(_ settings: Settings, in context: SuiteContext) async -> ModuleStatus {
        let queuePath = context.dataFile(.string(settings.queuePath), default: "")
        var status = ModuleStatus(engine: settings.engines.map(\.name).joined(separator: " + "), location: queuePath)
        guard FileManager.default.fileExists(atPath: queuePath) else {
            status.health = "ok (no events yet)"
            return status
        }
        do {
            let queue = try await AnalyticsQueue(path: queuePath).status()
            status.details.append(.init("queued", "\(queue.pending + queue.inFlight)"))
            if queue.failed > 0 {
                status.details.append(.init("failed", "\(queue.failed)"))
                status.health = "\(queue.failed) failed event(s): see `suite analytics queue`"
            }
        } catch {
            status.health = "cannot open the queue: \((error as? any SuiteDescribedError)?.message ?? "\(error)")"
            status.isHealthy = false
        }
        return status
    }

    /// Records the configured bus events while a command runs (see ``AnalyticsRecorderService``).
    package func services(_ settings: Settings, in context: SuiteContext) throws -> [any Service] {
        guard !settings.record.isEmpty else { return [] }
        let recorder = AnalyticsBusRecorder(
            bus: context.bus, limits: settings.configuration.limits, prefixes: settings.record)
        return [AnalyticsRecorderService(context: context, recorder: recorder)]
    }

    /// A manager on the configured engines and queue (the caller shuts it down), and how to close the engines after.
    static func makeManager(in context: SuiteContext) async throws -> (
        AnalyticsManager, close: @Sendable () async throws -> Void
    ) {
        let settings = try context.settings(of: AnalyticsModule.self)
        try context.ensureDataDirectory()
        var engines: [any AnalyticsEngine] = []
        for configured in settings.engines { engines.append(try await configured.make(in: context)) }
        var configuration = settings.configuration
        if !configuration.privacy.rules.isEmpty {
            configuration.privacy.salt = try Self.salt(in: context)
        }
        let queue = try AnalyticsQueue(path: context.dataFile(.string(settings.queuePath), default: ""))
        let manager = try AnalyticsManager(
            engine: engines.count == 1 ? engines[0] : MultiplexAnalyticsEngine(engines), queue: queue,
            configuration: configuration, clock: context.clock, logger: context.logger)
        let made = Array(zip(settings.engines, engines))
        return (
            manager,
            {
                for (configured, engine) in made { try await configured.close(engine) }
            }
        )
    }

    /// The privacy salt: `analytics.salt` in the data directory, 32 random bytes created 0600 on first use.
    static func salt(in context: SuiteContext) throws -> Data {
        let path = context.configuration.dataDirectory + "/analytics.salt"
        if let data = FileManager.default.contents(atPath: path), data.count >= 16 { return data }
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            if let data = FileManager.default.contents(atPath: path), data.count >= 16 { return data }
            throw SuiteError(
                .io, "cannot create the analytics salt file \(path)", hint: "check the data directory is writable")
        }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw SuiteError(.io, "cannot write the analytics salt file \(path)")
        }
        return bytes
    }
}

/// Moves what the bus recorder buffered into a manager of its own, each second and at shutdown, then shuts that
/// manager down (so the events are in the queue before the command exits).
package struct AnalyticsRecorderService: Service {
    let context: SuiteContext
    let recorder: AnalyticsBusRecorder

    package func run() async throws {
        var opened: (AnalyticsManager, close: @Sendable () async throws -> Void)?
        var failed = false
        // A failure (an engine that cannot be made) is logged once and costs the recorded events, never the command.
        func move() async {
            let events = recorder.drain()
            guard !events.isEmpty, !failed else { return }
            do {
                if opened == nil { opened = try await AnalyticsModule.makeManager(in: context) }
                for event in events { opened?.0.log(event) }
                try await opened?.0.persist()
            } catch {
                failed = true
                context.logger.error(
                    "recording bus events into analytics failed; they are not recorded in this command",
                    metadata: ["error": "\(error)"])
            }
        }
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // Woken at once by the command's end, so no command waits for the next tick to exit.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            await move()
        }
        recorder.cancel()
        await move()
        if let (manager, close) = opened {
            try await manager.shutdown()
            try await close()
        }
    }
}

extension SuiteContext {
    /// The analytics manager on the configured engines and queue, opened once per context; shut down (flushed, a
    /// delivery attempted) when the context closes.
    package func analytics() async throws -> AnalyticsManager {
        try await resources.open("analytics") { [self] in
            let (manager, close) = try await AnalyticsModule.makeManager(in: self)
            return (
                manager,
                {
                    try await manager.shutdown()
                    try await close()
                }
            )
        }
    }

    /// The persisted queue alone, for reading its status: no manager, so nothing is leased or delivered.
    package func analyticsQueue() throws -> AnalyticsQueue {
        let settings = try settings(of: AnalyticsModule.self)
        try ensureDataDirectory()
        return try AnalyticsQueue(path: dataFile(.string(settings.queuePath), default: ""))
    }

    /// The configured `sqlite` analytics engine (for reports), or nil when none is configured.
    package func analyticsEvents() throws -> SQLiteAnalyticsEngine? {
        for configured in try settings(of: AnalyticsModule.self).engines {
            if let engine = try configured.reportingEngine(in: self) { return engine }
        }
        return nil
    }
}
