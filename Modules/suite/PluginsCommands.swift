import ArgumentParser
import SuiteHost

/// `suite plugins …`: what is configured and loaded, and what one plugin file provides.
struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List configured plugins or inspect one.",
        subcommands: [List.self, Inspect.self])

    struct List: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List configured plugins, their engines, and load errors.",
            discussion: "Exits 1 when a configured plugin failed to load.")

        @OptionGroup var globals: GlobalOptions

        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let results = context.plugins.results
            if globals.json {
                Output.json(.array(results.map(PluginReport.json(for:))))
            } else if results.isEmpty {
                Output.print("no plugins configured (add `plugins: [NAME or PATH]` to suite.yaml)")
            } else {
                Output.print(PluginReport.table(results).render())
            }
            if !context.plugins.failures.isEmpty { throw ExitCode.failure }
        }
    }

    struct Inspect: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Load one plugin and print its descriptor.",
            discussion: """
                A name X is looked up as libX.so in the configuration's plugin-path, then SUITE_PLUGIN_PATH, then the \
                directory of the suite executable, then ../lib/suite beside it (make install); anything with a '/' or ending in .so is a path.
                """)

        @Argument(help: ArgumentHelp("A plugin name (EventLog) or a path to its .so file.", valueName: "path-or-name"))
        var plugin: String

        @OptionGroup var globals: GlobalOptions

        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let loader = PluginLoader(searchDirectories: context.plugins.searchDirectories)
            let loaded = try loader.load(plugin)
            if globals.json {
                Output.json(PluginReport.json(for: loaded))
            } else {
                Output.print(PluginReport.render(loaded))
            }
        }
    }
}
