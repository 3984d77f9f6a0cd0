import ArgumentParser
import SuiteCore
import SuiteHost
import SuitePluginKit

/// `suite status`: each module, the data directory and the loaded plugins.
struct StatusCommand: SuiteSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show each module, the data directory and the loaded plugins.",
        discussion: "Exits 1 when a configured plugin failed to load (the table says why).")

    @OptionGroup var globals: GlobalOptions

    var requiresPlugins: Bool { false }

    func run(_ context: SuiteContext) async throws {
        let report = StatusReport(context: context)
        if globals.json {
            Output.json(report.json)
        } else {
            Output.print(report.render())
        }
        if let failure = context.plugins.failures.first {
            Output.error(failure.message, hint: failure.hint)
            throw ExitCode.failure
        }
    }
}
