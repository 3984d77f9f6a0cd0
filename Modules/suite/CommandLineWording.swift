import Foundation
import SuiteHost

/// The command line's wording of errors: the libraries speak Swift in their hints (Documents' `setData(…, merge:
/// true)`, `.order(by:)`, `limit(toLast:)`); at the command line the same advice names the flag. One table, applied
/// where every subcommand prints its error (`SuiteSubcommand.run`), so no error path keeps a Swift hint.
enum CommandLineWording {
    /// Swift phrases and what to say instead at the command line, replaced in order.
    static let replacements: [(swift: String, cli: String)] = [
        ("use setData (with merge: true) to create it", "use `suite docs set PATH '{…}' --merge` to create it"),
        ("use setData(…, merge: true) or updateData", "use `suite docs set --merge` or `suite docs update`"),
        ("add .order(by: …)", "add --order-by FIELD"),
        ("order(by:)", "--order-by"),
        ("limit(toLast:)", "--limit-to-last"),
        ("give a value for every merged field", "give a value in the JSON for every field of --merge-fields"),
        ("use arrayUnion / arrayRemove", "use --array-union / --array-remove"),
    ]

    /// The start of the missing-index error's Swift alternative (`or from Swift: try await store.declareIndex(…)`).
    static let swiftIndexHint = "or from Swift: "

    /// `error`'s message and hint as the command line prints them.
    static func cli(_ error: any SuiteDescribedError) -> (message: String, hint: String?) {
        var hint = error.hint.map(translate)
        if let current = hint, current.hasPrefix(swiftIndexHint) {
            hint = "run the `suite docs index add …` command above once; the index is then kept up to date"
        }
        return (translate(error.message), hint)
    }

    /// `text` with every Swift phrase replaced: `.order(by: "points")` becomes `--order-by points`, then
    /// ``replacements``.
    static func translate(_ text: String) -> String {
        var text = text
        text.replace(/\.order\(by: "(?<field>[^"]*)"\)/) { "--order-by \($0.field)" }
        for (swift, cli) in replacements { text = text.replacingOccurrences(of: swift, with: cli) }
        return text
    }
}
