import ArgumentParser
import SuiteHost

/// `suite rules …`: Firestore's rules language, offline.
struct RulesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "Check a firestore.rules file and run allow/deny cases against it, offline.",
        subcommands: [Test.self])

    struct Test: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Run allow/deny cases against a firestore.rules file and print which rule decided each.",
            discussion: """
                The cases file (YAML or JSON) lists requests and what the rules must answer:

                  documents:                       # stored for every case (get() and exists() read them)
                    users/ana: {role: admin}
                  cases:
                    - name: ana reads her profile
                      get: users/ana               # or list (a collection), create, update, delete
                      auth: {uid: ana, token: {email_verified: true}}   # omitted: no user
                      resource: {name: Ana}        # the stored document; omitted: missing
                      data: {name: Ana}            # the document once written (create, update)
                      query: {limit: 10, where: {owner: ana}, in: {status: [a, b]}}   # list only
                      time: 2024-05-01T12:00:00Z   # request.time (default: now)
                      expect: allow                # or deny

                Values use Suite's tags for other types: {"$timestamp": "…"}, {"$ref": "users/ana"}, …. \
                Exit status 1 when a case is not decided as expected, 64 for a file that cannot be read.
                """)

        @Argument(help: ArgumentHelp("The rules file (firestore.rules).", valueName: "file")) var file: String
        @Option(help: ArgumentHelp("The cases file (YAML or JSON).", valueName: "file")) var cases: String
        @OptionGroup var globals: GlobalOptions

        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            // A file that cannot be used is exit status 64, apart from cases that fail (1).
            let rules: FirestoreRules
            let testCases: RulesTestCases
            do {
                rules = try FirestoreRules(contentsOf: file)
                testCases = try ServerModule.rulesTestCases(file: cases)
            } catch let error as any SuiteDescribedError {
                Output.error(error.message, hint: error.hint, json: globals.json)
                throw ExitCode.validationFailure
            }
            let results = await testCases.run(rules)
            let failed = results.filter { !$0.passed }.count
            if globals.json {
                Output.json(
                    .object([
                        "passed": .int(Int64(results.count - failed)), "failed": .int(Int64(failed)),
                        "cases": .array(
                            results.map { result in
                                .object([
                                    "name": .string(result.name),
                                    "expected": .string(result.expected ? "allow" : "deny"),
                                    "decided": .string(result.decision.allowed ? "allow" : "deny"),
                                    "passed": .bool(result.passed),
                                    "rule": result.decision.rule.map { .string("\(rules.fileName):\($0)") } ?? .null,
                                    "reason": .string(result.decision.reason),
                                ])
                            }),
                    ]))
            } else {
                var table = TextTable(["", "CASE", "EXPECTED", "DECIDED", "WHY"])
                for result in results {
                    table.append([
                        result.passed ? "ok" : "FAIL", result.name, result.expected ? "allow" : "deny",
                        result.decision.allowed ? "allow" : "deny", result.decision.reason,
                    ])
                }
                Output.print(table.render())
                Output.print("\(results.count - failed) passed, \(failed) failed")
            }
            if failed > 0 { throw ExitCode.failure }
        }
    }
}
