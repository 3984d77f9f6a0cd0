import ArgumentParser
import SuiteHost

/// A misspelled command (`suite dcos get`, `suite docs gte`): ArgumentParser only reports "unexpected arguments"; this
/// names the word, the command it is not a subcommand of, and the closest subcommand, as `git` does.
enum UnknownSubcommand {
    /// `suite`'s options that take a value: the word after one is its value, not a command.
    static let valueOptions: Set<String> = ["--config", "--data-dir", "--log-level", "--remote", "--token"]

    /// The first word of `arguments` (without the program's name) that is none of the subcommands of the command
    /// reached so far, with that command and the words that led to it; `nil` when there is no such word.
    static func find(in arguments: [String]) -> (command: any ParsableCommand.Type, path: [String], word: String)? {
        var command: any ParsableCommand.Type = SuiteCommand.self
        var path = ["suite"]
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return nil }
            if argument.hasPrefix("-") {
                if valueOptions.contains(argument) { index += 1 }
                continue
            }
            let configuration = command.configuration
            // A leaf takes positional arguments; a group with a default subcommand passes them on to it.
            guard !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil, argument != "help"
            else { return nil }
            guard let next = configuration.subcommands.first(where: { names($0).contains(argument) }) else {
                return (command, path, argument)
            }
            command = next
            path.append(argument)
        }
        return nil
    }

    /// The message and hint for `word`, which is not a subcommand of `command` (reached through `path`).
    static func describe(_ word: String, command: any ParsableCommand.Type, path: [String]) -> (String, String) {
        let known = command.configuration.subcommands.map { $0._commandName }
        let list = "`\(path.joined(separator: " ")) --help` lists them: " + known.joined(separator: ", ")
        let message = "'\(word)' is not a command of `\(path.joined(separator: " "))`"
        guard let match = Suggestion.closest(to: word, among: known) else { return (message, list) }
        return (message, "did you mean '\(match)'? \(list)")
    }

    private static func names(_ command: any ParsableCommand.Type) -> [String] {
        [command._commandName] + command.configuration.aliases
    }
}
