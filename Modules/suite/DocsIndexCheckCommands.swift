import ArgumentParser
import Foundation
import SuiteHost

extension DocsCommand {
    struct IndexVerify: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check that index scans return exactly the documents' own entries; exit 1 on any difference.",
            discussion: """
                Every document keeps its own index entries; verify compares them with what the index returns, for \
                every index or one (a declared index: COLLECTION FIELD…, or an engine index with --name), and prints \
                each difference: "missing" (the document has the entry, queries miss it) or "unexpected" (queries \
                return an entry no document has). Fix them with `suite docs index rebuild`. Progress goes to stderr.
                """)

        @OptionGroup var selection: IndexSelectionArguments
        @Option(help: "Print at most this many differences.") var maxDifferences = 100
        @OptionGroup var globals: GlobalOptions

        func validate() throws {
            try selection.validate()
            guard maxDifferences >= 0 else { throw ValidationError("--max-differences must be 0 or more") }
        }

        func run(_ context: SuiteContext) async throws {
            var consistent = true
            try await withStore(context) { store in
                let report = try await store.verifyIndexes(
                    try selection.selection(), maximumReported: maxDifferences,
                    progress: IndexProgressPrinter.handler(verb: "verified"))
                try selection.requireFound(report.indexes)
                consistent = report.isConsistent
                if globals.json {
                    Output.json(report.json)
                } else {
                    Output.print(report.render())
                }
            }
            if !consistent { throw ExitCode.failure }
        }
    }

    struct IndexRebuild: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "rebuild",
            abstract: "Rebuild every index (or one) from the documents' own entries, in bounded memory.",
            discussion: """
                With no index named, every index is rebuilt; otherwise a declared index (COLLECTION FIELD…, \
                --group for its group scope) or an engine index (--name 'users|points'). Atomic: queries see the old \
                index until the new one is complete. Progress goes to stderr.
                """)

        @OptionGroup var selection: IndexSelectionArguments
        @OptionGroup var globals: GlobalOptions

        func validate() throws { try selection.validate() }

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let report = try await store.rebuildIndexes(
                    try selection.selection(), progress: IndexProgressPrinter.handler(verb: "rebuilt"))
                try selection.requireFound(report.indexes)
                if globals.json {
                    Output.json(["indexes": .int(Int64(report.indexes)), "entries": .int(Int64(report.entries))])
                } else {
                    Output.print("rebuilt \(report.indexes) index(es), \(report.entries) entries")
                }
            }
        }
    }
}

/// The index `verify` and `rebuild` work on: all, a declared one, or an engine index by name.
struct IndexSelectionArguments: ParsableArguments {
    @Argument(help: "A declared index's collection id, then its fields (FIELD, FIELD:asc, FIELD:desc, FIELD:contains).")
    var index: [String] = []
    @Flag(help: "The declared index has collection-group scope.") var group = false
    @Option(help: "An engine index name, as verify prints it (e.g. 'users|points').") var name: String?

    func validate() throws {
        if name != nil, !index.isEmpty {
            throw ValidationError("name an index either with COLLECTION FIELD… or with --name, not both")
        }
        if index.count == 1 { throw ValidationError("give the index's fields after its collection id '\(index[0])'") }
        if group, index.isEmpty { throw ValidationError("--group needs a declared index (COLLECTION FIELD…)") }
    }

    /// Fails when a named index matched nothing (a typo must not pass for "consistent" or "rebuilt").
    func requireFound(_ indexes: Int) throws {
        guard indexes == 0, name != nil || !index.isEmpty else { return }
        let what = name.map { "'\($0)'" } ?? "on \(index.joined(separator: " "))\(group ? " (group)" : "")"
        throw SuiteError(
            .notFound, "no index \(what) in this store",
            hint: "`suite docs index list` lists declared (composite) indexes; a field's automatic index is named "
                + "COLLECTION|FIELD (--name 'users|points'); `suite docs index verify` alone checks them all")
    }

    func selection() throws -> IndexSelection {
        if let name { return .named([name]) }
        guard let collection = index.first else { return .all }
        let definition = IndexDefinition(
            collectionID: collection, scope: group ? .collectionGroup : .collection,
            fields: try index.dropFirst().map(IndexDefinition.Field.init(parsing:)))
        return definition.engineIndexes
    }
}

/// Prints a long verification's or rebuild's progress on stderr, at most once a second.
enum IndexProgressPrinter {
    static func handler(verb: String) -> IndexProgressHandler {
        let last = LastReport()
        return { done, total in
            guard total > 0, last.due(done, total) else { return }
            FileHandle.standardError.write(Data("\(verb) \(done) of \(total) entries\n".utf8))
        }
    }

    /// When progress was last printed: again after a second, or once at the end.
    final class LastReport: @unchecked Sendable {
        private let lock = NSLock()
        private var time = Date.distantPast
        private var done = -1
        func due(_ done: Int, _ total: Int) -> Bool {
            lock.withLock {
                let now = Date()
                if done == self.done || (done < total && now.timeIntervalSince(time) < 1) { return false }
                (time, self.done) = (now, done)
                return true
            }
        }
    }
}

extension IndexVerification {
    /// `{"consistent","indexes","entries","differenceCount","differences":[{"kind","index","key"(base64),"path"}]}`.
    var json: JSONValue {
        [
            "consistent": .bool(isConsistent), "indexes": .int(Int64(indexes)), "entries": .int(Int64(entries)),
            "differenceCount": .int(Int64(differenceCount)),
            "differences": .array(
                differences.map {
                    [
                        "kind": .string($0.kind.rawValue), "index": .string($0.index),
                        "key": .string(Data($0.key).base64EncodedString()), "path": .string($0.path),
                    ]
                }),
        ]
    }

    func render() -> String {
        var lines = differences.map {
            "\($0.kind.rawValue) \($0.index) \($0.path) key \(Data($0.key).base64EncodedString())"
        }
        if differenceCount > differences.count {
            lines.append("… and \(differenceCount - differences.count) more (--max-differences)")
        }
        lines.append(
            isConsistent
                ? "index consistent: \(indexes) index(es), \(entries) entries"
                : "index inconsistent: \(differenceCount) difference(s) in \(indexes) index(es), \(entries) entries "
                    + "(fix with `suite docs index rebuild`)")
        return lines.joined(separator: "\n")
    }
}
