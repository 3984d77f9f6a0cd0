import ArgumentParser
import SuiteHost

/// `suite config …`: the resolved configuration.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the resolved configuration.",
        subcommands: [Show.self])

    struct Show: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print every configuration value and where it came from (default, file, env or flag).")

        @OptionGroup var globals: GlobalOptions

        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            if globals.json {
                Output.json(ConfigurationReport.json(context.configuration))
            } else {
                Output.print(ConfigurationReport.render(context.configuration))
            }
        }
    }
}
