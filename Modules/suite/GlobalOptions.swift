import ArgumentParser
import Foundation
import Logging
import SuiteHost

/// Options every subcommand accepts, before or after its name.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Configuration file (YAML, or JSON if it ends in .json).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Directory of the embedded stores.", valueName: "path"))
    var dataDir: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String?

    @Flag(name: .long, help: "Print JSON for scripts instead of text for people.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Make the local store a replica of this `suite serve` (overrides sync.remote).", valueName: "url"))
    var remote: String?

    @Option(name: .long, help: ArgumentHelp("The bearer token for --remote (or SUITE_TOKEN).", valueName: "token"))
    var token: String?

    /// What the flags set: `--config`, `--data-dir`, `--log-level`, and `--remote` and `--token` as keys of the
    /// `sync` section.
    var overrides: ConfigurationLoader.Overrides {
        var sync: [String: JSONValue] = [:]
        if let remote { sync["remote"] = .string(remote) }
        if let token {
            sync["token"] = .string(token)
            sync["token-file"] = .null
        }
        return ConfigurationLoader.Overrides(
            configFile: config, dataDirectory: dataDir, logLevel: logLevel,
            sectionKeys: sync.isEmpty ? [:] : ["sync": sync], sectionFlag: remote != nil ? "--remote" : "--token")
    }

    func validate() throws {
        if let logLevel, !ConfigurationLoader.logLevels.contains(logLevel) {
            throw ValidationError(
                "unknown log level '\(logLevel)'; use one of \(ConfigurationLoader.logLevels.joined(separator: ", "))")
        }
    }
}

/// A subcommand run with a ``SuiteContext`` built once by the composition root (SwiftPM's pattern).
protocol SuiteSubcommand: AsyncParsableCommand, Sendable {
    var globals: GlobalOptions { get }
    /// Whether the subcommand runs the modules' background services (observers on the bus, …); commands that only
    /// report (`status`, `config show`, `plugins list`) do not, so a broken plugin cannot stop them.
    var runsServices: Bool { get }
    /// Whether a graceful shutdown (SIGINT, SIGTERM) cancels the command; `serve` shuts down by itself instead.
    var cancelsOnShutdown: Bool { get }
    func run(_ context: SuiteContext) async throws
}

extension SuiteSubcommand {
    var runsServices: Bool { true }
    var cancelsOnShutdown: Bool { true }

    mutating func run() async throws {
        do {
            let modules = SuiteCommand.modules
            let loader = ConfigurationLoader(modules: modules)
            let (configuration, settings) = try loader.loadSettings(globals.overrides)
            let logger = HostLogging.bootstrap(level: configuration.logLevel)
            let context = SuiteContext(
                configuration: configuration, modules: modules, settings: settings, logger: logger,
                environmentPluginPath: loader.environmentPluginPath)
            if runsServices { try context.plugins.requireAllLoaded() }
            // The context runs the modules' services (observers get every bus event the command causes), then shuts
            // them down and closes every engine the command opened, also on SIGINT/SIGTERM.
            let command = self
            try await context.run(withServices: runsServices, cancelOnShutdown: cancelsOnShutdown) {
                try await command.run(context)
            }
        } catch let error as any SuiteDescribedError {
            let text = CommandLineWording.cli(error)
            Output.error(text.message, hint: text.hint, json: globals.json)
            throw ExitCode.failure
        } catch let error as ExitCode {
            throw error
        } catch let error as CleanExit {
            throw error
        } catch let error as ValidationError {
            Output.error(error.message, hint: nil, json: globals.json)
            throw ExitCode.validationFailure
        } catch {
            // Anything else still reaches the user as one `error:` line (or one JSON object), never a Swift dump.
            Output.error(String(describing: error), hint: nil, json: globals.json)
            throw ExitCode.failure
        }
    }
}

/// Printing for people and scripts: results on stdout, errors and progress on stderr.
enum Output {
    static func print(_ text: String, terminator: String = "\n") {
        Swift.print(text, terminator: terminator)
    }

    static func json(_ value: JSONValue) {
        Swift.print(value.prettyJSONString)
    }

    /// Writes what is buffered for stdout now: a line a script or a test waits for while the command goes on.
    static func flush() {
        fflush(nil)
    }

    /// Prints `error: …` and `hint: …` on stderr, or with `json` one object `{"error":{"message","hint"}}`.
    static func error(_ message: String, hint: String?, json: Bool = false) {
        var text: String
        if json {
            text =
                JSONValue.object([
                    "error": .object(["message": .string(message), "hint": hint.map(JSONValue.string) ?? .null])
                ]).jsonString + "\n"
        } else {
            text = "error: \(message)\n"
            if let hint { text += "hint: \(hint)\n" }
        }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The one place the process's logging backend is chosen (swift-log's bootstrap, called once).
enum HostLogging {
    static func bootstrap(level: String) -> Logger {
        let logLevel = Logger.Level(rawValue: level) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = LazyMetadataLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = logLevel
            return handler
        }
        var logger = Logger(label: "suite")
        logger.logLevel = logLevel
        return logger
    }
}

/// swift-log's `StreamLogHandler`, with its metadata rendered only when a line is written. `StreamLogHandler` renders
/// (sorts and formats) its metadata each time an item is set: Hummingbird sets the request id on every request's
/// logger, which cost `suite serve` about 3% of a GET even with nothing logged. The lines written are the same.
struct LazyMetadataLogHandler: LogHandler {
    private var stream: StreamLogHandler
    var metadata = Logger.Metadata()

    init(_ stream: StreamLogHandler) { self.stream = stream }

    var logLevel: Logger.Level {
        get { stream.logLevel }
        set { stream.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { stream.metadataProvider }
        set { stream.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var handler = stream
        handler.metadata = metadata
        handler.log(event: event)
    }
}
