import ArgumentParser
import SuiteHost

/// `suite`: one command driving every Suite module.
@main
struct SuiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "Suite — documents, cache, sync, storage accounting, analytics and work tracking for apps.",
        discussion: """
            With no configuration, Suite runs on embedded defaults: SQLite files under the data directory ($XDG_DATA_HOME/suite, i.e. ~/.local/share/suite). Configuration comes from --config FILE, SUITE_CONFIG, ./suite.yaml or $XDG_CONFIG_HOME/suite/suite.yaml; SUITE_* variables override the file, flags override both.

            Global options (--config, --data-dir, --log-level, --json) go before or after the subcommand.

            Exit codes:
              0   success
              1   the command failed; an `error:` line and a `hint:` say why and what to do
              1   also: `docs index verify` found differences (it prints them)
              64  the command line itself is wrong (unknown command or option, bad value)
            With --json, an error is one JSON object on stderr instead: {"error":{"message":…,"hint":…}}.
            """,
        version: SuiteContext.version,
        subcommands: [
            StatusCommand.self, DocsCommand.self, CacheCommand.self, AnalyticsCommand.self, StorageCommand.self,
            WorkCommand.self, ServeCommand.self, UsersCommand.self, SyncCommand.self,
            PluginsCommand.self, RulesCommand.self,
            ConfigCommand.self,
            EventsCommand.self,
        ]
    )

    @OptionGroup var globals: GlobalOptions

    /// Parses and runs the command. With `--json` on the command line, a command-line error (an unknown option, a
    /// bad value, a failed `validate()`) is one JSON object on stderr like every other error, still with exit code 64.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            let json = CommandLine.arguments.dropFirst().contains("--json")
            if code != .success, let unknown = UnknownSubcommand.find(in: Array(CommandLine.arguments.dropFirst())) {
                let (message, hint) = UnknownSubcommand.describe(
                    unknown.word, command: unknown.command, path: unknown.path)
                Output.error(message, hint: hint, json: json)
                exit(withError: ExitCode.validationFailure)
            }
            if code != .success, json {
                Output.error(message(for: error), hint: "see `suite help` for the command's options", json: true)
                exit(withError: code)
            }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The registered modules (``SuiteHost/SuiteModules``).
    static var modules: [any SuiteModule] { SuiteModules.all }
}
