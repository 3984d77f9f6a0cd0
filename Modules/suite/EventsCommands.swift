import ArgumentParser
import SuiteHost

/// `suite events …`: the event bus from the command line.
struct EventsCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Publish events on the bus.",
        subcommands: [Emit.self])

    struct Emit: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "emit",
            abstract: "Publish one event, deliver it to the configured observers, flush them and exit.",
            discussion: "Example: suite events emit demo.hello --payload '{\"n\":1}'")

        @Argument(help: ArgumentHelp("The event's name, e.g. demo.hello.", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("The event's payload as JSON (default {}).", valueName: "json"))
        var payload: String?

        @OptionGroup var globals: GlobalOptions

        func validate() throws {
            guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw ValidationError("an event name is a non-empty word without spaces, e.g. demo.hello")
            }
        }

        func run(_ context: SuiteContext) async throws {
            let payloadValue: JSONValue
            do {
                payloadValue = try payload.map { try JSONValue(parsing: $0) } ?? .object([:])
            } catch let error as SuiteError {
                throw SuiteError(
                    .invalidArgument, "--payload is not valid JSON: \(error.message)",
                    hint: "quote it for the shell: --payload '{\"n\":1}'")
            }
            // The composition root has attached the configured observers; they are flushed before exit.
            context.bus.publish(GenericEvent(name: name, payload: payloadValue))
            let observers = try context.settings(of: ObserversModule.self).count
            if globals.json {
                Output.json(.object(["published": .string(name), "observers": .int(Int64(observers))]))
            } else {
                Output.print("published \(name) to \(observers) observer(s)")
            }
        }
    }
}
