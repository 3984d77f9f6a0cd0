public import Logging
public import SuiteCore

/// What the host offers a plugin engine: logging and publishing events on its bus. The host passes one to
/// ``LoadedPlugin/makeEngine(kind:name:options:services:callTimeout:logger:)``; a Swift plugin receives its own view
/// of it in its engine factory (`.observer("x") { options, host in … }`), whose calls cross the C ABI back to the host.
///
/// ```swift
/// let services = PluginHostServices(
///     log: { level, message in logger.log(level: level, "\(message)") },
///     publish: { name, payload in bus.publish(PluginEvent(name: name, payload: payload)) })
/// ```
///
/// The closures may be called from any thread, also from inside an engine's operation. They must return quickly and
/// must not call into a plugin engine synchronously (a plugin may hold its own lock while it calls them).
///
/// Inside a plugin, the services reach the host through a table that is valid until the engine is destroyed: do not
/// use them after that, e.g. from a task the engine started and did not wait for.
public struct PluginHostServices: Sendable {
    /// Logs `message` at `level`, on behalf of the engine.
    public var log: @Sendable (Logger.Level, String) -> Void
    /// Publishes an event named `name` with a JSON payload.
    public var publish: @Sendable (String, JSONValue) -> Void
    /// The lowest level the host records: ``logHandler(label:)`` skips building messages below it.
    public var logLevel: Logger.Level

    /// Services made of two closures; `logLevel` is the lowest level `log` records.
    public init(
        log: @escaping @Sendable (Logger.Level, String) -> Void,
        publish: @escaping @Sendable (String, JSONValue) -> Void, logLevel: Logger.Level = .trace
    ) {
        self.log = log
        self.publish = publish
        self.logLevel = logLevel
    }

    /// Services that drop everything: what an engine gets when the host offers none (or a 1.0 host created it).
    public static var discarding: PluginHostServices {
        PluginHostServices(log: { _, _ in }, publish: { _, _ in }, logLevel: .critical)
    }

    /// Logs through `logger` (give it the plugin and engine as metadata to tell engines apart), at its level, and
    /// publishes through `publish`.
    public static func logging(
        to logger: Logger, publish: @escaping @Sendable (String, JSONValue) -> Void = { _, _ in }
    ) -> PluginHostServices {
        PluginHostServices(
            log: { level, message in logger.log(level: level, "\(message)") }, publish: publish,
            logLevel: logger.logLevel)
    }

    /// A swift-log handler writing through these services: inside a plugin, a `Logger` made with it follows the
    /// host's `--log-level` and lands in the host's log with the plugin's and engine's names.
    ///
    /// ```swift
    /// .documents("postgres") { options, host in
    ///     try PostgresDocumentEngine(options: options, logger: Logger(label: "postgres", factory: host.logHandler))
    /// }
    /// ```
    @Sendable public func logHandler(label: String) -> any LogHandler {
        PluginHostLogHandler(services: self)
    }
}

/// A swift-log handler that hands each message, with its metadata as `key=value` pairs, to the host's services
/// (``PluginHostServices/logHandler(label:)``).
public struct PluginHostLogHandler: LogHandler {
    let services: PluginHostServices
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level

    /// A handler logging through `services`, at their level.
    public init(services: PluginHostServices) {
        self.services = services
        self.logLevel = services.logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        services.log(event.level, pairs.isEmpty ? "\(event.message)" : "\(event.message) \(pairs)")
    }
}

extension Logger.Level {
    /// The `SUITE_LOG_*` value of this level (0 trace … 6 critical).
    var abiValue: Int32 {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    /// The level of a `SUITE_LOG_*` value; values outside 0…6 are clamped to trace or critical.
    init(abiValue: Int32) {
        switch abiValue {
        case ...0: self = .trace
        case 1: self = .debug
        case 2: self = .info
        case 3: self = .notice
        case 4: self = .warning
        case 5: self = .error
        default: self = .critical
        }
    }
}
