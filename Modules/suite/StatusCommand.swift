import ArgumentParser
import SuiteHost

/// `suite status`: each module, the data directory and the loaded plugins.
struct StatusCommand: SuiteSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each module with its engine, data and health, the event bus and the loaded plugins.",
        discussion: "Exits 1 when a configured plugin failed to load or a module is not usable (the table says why).")

    @OptionGroup var globals: GlobalOptions

    var runsServices: Bool { false }

    func run(_ context: SuiteContext) async throws {
        let report = await StatusReport(context: context)
        if globals.json {
            Output.json(report.json)
        } else {
            Output.print(report.render())
        }
        if let failure = context.plugins.failures.first {
            Output.error(failure.message, hint: failure.hint, json: globals.json)
            throw ExitCode.failure
        }
        if !report.isHealthy { throw ExitCode.failure }
    }
}
