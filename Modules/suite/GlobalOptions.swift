import ArgumentParser
import Foundation
import Logging
import SuiteCore
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

    func validate() throws {
        if let logLevel, !ConfigurationLoader.logLevels.contains(logLevel) {
            throw ValidationError(
                "unknown log level '\(logLevel)'; use one of \(ConfigurationLoader.logLevels.joined(separator: ", "))")
        }
    }
}

/// A subcommand run with a ``SuiteContext`` built once by the composition root (SwiftPM's pattern).
protocol SuiteSubcommand: AsyncParsableCommand {
    var globals: GlobalOptions { get }
    /// Whether the subcommand needs the configured plugins to have loaded (most do).
    var requiresPlugins: Bool { get }
    func run(_ context: SuiteContext) async throws
}

extension SuiteSubcommand {
    var requiresPlugins: Bool { true }

    mutating func run() async throws {
        do {
            let loader = ConfigurationLoader()
            let configuration = try loader.load(
                .init(configFile: globals.config, dataDirectory: globals.dataDir, logLevel: globals.logLevel))
            let logger = HostLogging.bootstrap(level: configuration.logLevel)
            let context = SuiteContext(
                configuration: configuration, logger: logger, environmentPluginPath: loader.environmentPluginPath)
            guard requiresPlugins else {
                try await run(context)
                return
            }
            // Every command that loads plugins attaches the configured observers, so the bus events it causes
            // (documents.changed, documents.cost, …) reach them; they are flushed before the process exits.
            try context.plugins.requireAllLoaded()
            let observers = try context.attachObservers()
            do {
                try await run(context)
            } catch {
                try? await observers.shutdown()
                throw error
            }
            try await observers.shutdown()
        } catch let error as any SuiteDescribedError {
            Output.error(error.message, hint: error.hint)
            throw ExitCode.failure
        }
    }
}

/// Printing for people and scripts: results on stdout, errors and progress on stderr.
enum Output {
    static func print(_ text: String) {
        Swift.print(text)
    }

    static func json(_ value: JSONValue) {
        Swift.print(value.prettyJSONString)
    }

    static func error(_ message: String, hint: String?) {
        var text = "error: \(message)\n"
        if let hint { text += "hint: \(hint)\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// The one place the process's logging backend is chosen (swift-log's bootstrap, called once).
enum HostLogging {
    static func bootstrap(level: String) -> Logger {
        let logLevel = Logger.Level(rawValue: level) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        var logger = Logger(label: "suite")
        logger.logLevel = logLevel
        return logger
    }
}
