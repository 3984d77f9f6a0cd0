import ArgumentParser
import Foundation
import SuiteHost

/// `suite docs …`: the document database from the command line.
struct DocsCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Read, write and query documents (Firestore's model, embedded on SQLite).",
        discussion: """
            Paths alternate collection and document: users/u1, users/u1/orders/o7. Values are JSON; other types \
            use tagged objects: {"$timestamp":"2026-01-01T00:00:00Z"}, {"$bytes":"aGk="}, {"$ref":"users/u1"}, \
            {"$geo":[48.85,2.35]}.
            """,
        subcommands: [
            Set.self, Update.self, Get.self, Delete.self, Add.self, Batch.self, DocsQuery.self, Import.self,
            Export.self, Watch.self, Index.self, Stats.self,
        ])

    struct Set: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Replace a document (or merge into it with --merge); prints the result.",
            discussion: """
                Example: suite docs set users/u1 '{"name":"Ana","points":10}'. A large document comes from a file \
                (suite docs set users/u1 @user.json) or standard input (… | suite docs set users/u1 -).
                """)

        @Argument(help: "The document path, e.g. users/u1.") var path: String
        @Argument(help: "The document's fields as a JSON object, @FILE for a file's, or - for standard input.")
        var json: String
        @Flag(help: "Merge the fields into the existing document instead of replacing it.") var merge = false
        @Option(help: "With --merge, merge only these comma-separated field paths.") var mergeFields: String?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let fields = FieldValue.fields(
                    try DocumentsCommandSupport.data(fromJSON: try jsonArgument(json), what: "the document"))
                let document = try store.document(path)
                let result: DocumentSnapshot
                if let mergeFields {
                    result = try await document.setData(
                        fields, mergeFields: mergeFields.split(separator: ",").map(String.init))
                } else {
                    result = try await document.setData(fields, merge: merge)
                }
                printDocument(result, json: globals.json)
            }
        }
    }

    struct Update: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "update",
            abstract: "Update fields of an existing document, with transforms; fails if it does not exist.",
            discussion: """
                Keys of the JSON are field paths (address.city). Example: suite docs update users/u1 \
                --increment points=-10 --server-timestamp redeemedAt --array-union tags='["vip"]'
                """)

        @Argument(help: "The document path.") var path: String
        @Argument(help: "Fields to set, as a JSON object (keys are field paths), @FILE, or - for standard input.")
        var json: String?
        @Option(help: ArgumentHelp("Add N to a numeric field.", valueName: "field=N")) var increment: [String] = []
        @Option(help: ArgumentHelp("Set a field to the commit time.", valueName: "field"))
        var serverTimestamp: [String] = []
        @Option(help: ArgumentHelp("Add elements missing from an array field.", valueName: "field=<json array>"))
        var arrayUnion: [String] = []
        @Option(help: ArgumentHelp("Remove elements from an array field.", valueName: "field=<json array>"))
        var arrayRemove: [String] = []
        @Option(help: ArgumentHelp("Remove a field.", valueName: "field")) var deleteField: [String] = []
        @OptionGroup var globals: GlobalOptions

        /// Checked in `run`, so the error honours `--json`.
        func check() throws {
            if json == nil && increment.isEmpty && serverTimestamp.isEmpty && arrayUnion.isEmpty
                && arrayRemove.isEmpty && deleteField.isEmpty
            {
                throw ValidationError("nothing to update: give a JSON object or a transform such as --increment f=1")
            }
        }

        func run(_ context: SuiteContext) async throws {
            try check()
            try await withStore(context) { store in
                var fields: [String: FieldValue] = [:]
                if let json {
                    fields = FieldValue.fields(
                        try DocumentsCommandSupport.data(fromJSON: try jsonArgument(json), what: "the update"))
                }
                for text in increment {
                    let (field, value) = try DocumentsCommandSupport.increment(text)
                    fields[field] = value
                }
                for field in serverTimestamp { fields[field] = .serverTimestamp }
                for text in arrayUnion {
                    let (field, value) = try DocumentsCommandSupport.arrayTransform(text, union: true)
                    fields[field] = value
                }
                for text in arrayRemove {
                    let (field, value) = try DocumentsCommandSupport.arrayTransform(text, union: false)
                    fields[field] = value
                }
                for field in deleteField { fields[field] = .delete }
                printDocument(try await store.document(path).updateData(fields), json: globals.json)
            }
        }
    }

    struct Get: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print a document.")

        @Argument(help: "The document path.") var path: String
        @Option(help: "Only these comma-separated field paths (a field mask).") var fields: String?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                var snapshot = try await store.document(path).getDocument()
                guard snapshot.exists else {
                    throw DocumentsError(
                        .notFound, "document \(path) does not exist",
                        hint: "create it with `suite docs set \(path) '{…}'`")
                }
                if let fields {
                    snapshot = snapshot.masked(to: try fields.split(separator: ",").map { try FieldPath(String($0)) })
                }
                printDocument(snapshot, json: globals.json)
            }
        }
    }

    struct Delete: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete a document (deleting a missing one is not an error).")

        @Argument(help: "The document path.") var path: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let result = try await store.document(path).delete()
                if globals.json {
                    Output.json(result.json)
                } else {
                    Output.print("deleted \(path)")
                }
            }
        }
    }

    struct Add: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a document with a generated id to a collection; prints it.")

        @Argument(help: "The collection path, e.g. pointTransactions.") var collection: String
        @Argument(help: "The document's fields as a JSON object, @FILE for a file's, or - for standard input.")
        var json: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let data = try DocumentsCommandSupport.data(fromJSON: try jsonArgument(json), what: "the document")
                printDocument(try await store.collection(collection).addDocument(data: data), json: globals.json)
            }
        }
    }

    struct Batch: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "batch",
            abstract: "Apply a JSON array of writes atomically; prints the resulting documents.",
            discussion: """
                Each write: {"op": "set|update|delete|add", "path": …, "data": {…}, "merge": bool, \
                "transforms": {"points": {"increment": -10}, "at": "serverTimestamp", "tags": {"arrayUnion": […]}, \
                "old": {"arrayRemove": […]}, "gone": "delete"}, "precondition": {"version": N} | {"exists": bool}}. \
                With preconditions this is the command line's transaction: read, then write conditioned on the \
                versions read; if any document moved, nothing changes and the command fails.
                """)

        @Argument(help: "The batch file, or - for standard input.") var file: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let text: String
            if file == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw SuiteError(
                        .notFound, "cannot read batch file \(file)", hint: "give a JSON file or - for stdin")
                }
                text = contents
            }
            let json: JSONValue
            do {
                json = try JSONValue(parsing: text)
            } catch let error as SuiteError {
                throw SuiteError(.invalidArgument, "batch file \(file) is not valid JSON: \(error.message)")
            }
            try await withStore(context) { store in
                let batch = try store.batch(json: json)
                let results = try await batch.commit()
                if globals.json {
                    Output.json(.array(results.map(\.json)))
                } else {
                    for result in results {
                        Output.print(
                            result.exists ? "\(result.path)  version \(result.version)" : "\(result.path)  deleted")
                    }
                }
            }
        }
    }

    struct DocsQuery: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
            abstract: "Query a collection (or a collection group) with filters, ordering, cursors and aggregations.",
            discussion: """
                --where takes FIELD OP VALUE with OP one of ==, !=, <, <=, >, >=, in, not-in, array-contains, \
                array-contains-any, e.g. --where 'points >= 10' --where 'tags array-contains "coffee"'. \
                Several --where are ANDed. __name__ is the document id.
                """)

        @Argument(help: "The collection path (or, with --group, a collection id).") var collection: String
        @Option(name: .customLong("where"), help: ArgumentHelp("A filter: FIELD OP VALUE.", valueName: "expr"))
        var filters: [String] = []
        @Option(help: ArgumentHelp("Order by a field, FIELD or FIELD:desc.", valueName: "field"))
        var orderBy: [String] = []
        @Option(help: "Return at most N documents.") var limit: Int?
        @Option(help: "Return the last N documents of the ordering.") var limitToLast: Int?
        @Option(help: ArgumentHelp("Start after these order-by values (a JSON array).", valueName: "json"))
        var startAfter: String?
        @Option(help: ArgumentHelp("Start at these order-by values (a JSON array).", valueName: "json"))
        var startAt: String?
        @Option(help: ArgumentHelp("End before these order-by values (a JSON array).", valueName: "json"))
        var endBefore: String?
        @Option(help: ArgumentHelp("End at these order-by values (a JSON array).", valueName: "json"))
        var endAt: String?
        @Option(help: "Only these comma-separated field paths.") var fields: String?
        @Flag(help: "Query every collection with this id (a collection-group query).") var group = false
        @Flag(help: "Print the number of matching documents.") var count = false
        @Option(help: ArgumentHelp("Print the sum of a numeric field.", valueName: "field")) var sum: String?
        @Option(help: ArgumentHelp("Print the average of a numeric field.", valueName: "field")) var avg: String?
        @Flag(help: "Print the plan: index used, index entries scanned, documents read.") var explain = false
        @OptionGroup var globals: GlobalOptions

        /// Checked in `run`, so the error honours `--json`.
        func check() throws {
            if [count, sum != nil, avg != nil, explain].filter({ $0 }).count > 1 {
                throw ValidationError("choose one of --count, --sum, --avg, --explain")
            }
            if let limit, limit < 0 { throw ValidationError("--limit must be positive") }
            if let limitToLast, limitToLast < 1 { throw ValidationError("--limit-to-last must be positive") }
        }

        func run(_ context: SuiteContext) async throws {
            try check()
            try await withStore(context) { store in
                var query = group ? try store.collectionGroup(collection) : try store.collection(collection).query
                for expression in filters { query = try query.whereExpression(expression) }
                for text in orderBy {
                    let (field, descending) = try DocumentsCommandSupport.order(parsing: text)
                    query = query.order(by: field, descending: descending)
                }
                if let limit { query = query.limit(to: limit) }
                if let limitToLast { query = query.limit(toLast: limitToLast) }
                // One start and one end cursor: of --start-at / --start-after (and of the end flags), the last given
                // on the command line wins.
                let starts = [("--start-at", startAt), ("--start-after", startAfter)]
                if let (flag, text) = Self.lastGiven(starts, in: CommandLine.arguments) {
                    let values = try cursor(text, flag)
                    query = flag == "--start-at" ? query.start(at: values) : query.start(after: values)
                }
                let ends = [("--end-at", endAt), ("--end-before", endBefore)]
                if let (flag, text) = Self.lastGiven(ends, in: CommandLine.arguments) {
                    let values = try cursor(text, flag)
                    query = flag == "--end-at" ? query.end(at: values) : query.end(before: values)
                }
                if let fields { query = query.select(fields.split(separator: ",").map(String.init)) }

                if explain {
                    let plan = try await query.explain()
                    if globals.json {
                        Output.json(plan.json)
                    } else {
                        Output.print(DocumentsCommandSupport.render(plan))
                    }
                } else if count {
                    let value = try await query.count()
                    Output.print(globals.json ? JSONValue.object(["count": .int(Int64(value))]).jsonString : "\(value)")
                } else if let sum {
                    let value = DocumentJSON.json(from: try await query.sum(sum))
                    Output.print(globals.json ? JSONValue.object(["sum": value]).jsonString : value.jsonString)
                } else if let avg {
                    let value = try await query.average(avg).map(JSONValue.double) ?? .null
                    Output.print(globals.json ? JSONValue.object(["average": value]).jsonString : value.jsonString)
                } else {
                    let snapshot = try await query.getDocuments()
                    if globals.json {
                        Output.json(.array(snapshot.documents.map(\.json)))
                    } else {
                        Output.print(DocumentsCommandSupport.table(snapshot.documents, showingPaths: group))
                    }
                }
            }
        }

        func cursor(_ text: String, _ flag: String) throws -> [DocumentValue] {
            let value = try DocumentsCommandSupport.value(fromJSON: text, what: flag)
            if case .array(let values) = value {
                guard !values.isEmpty else {
                    throw SuiteError(
                        .invalidArgument, "\(flag) '[]' has no values",
                        hint: "give the --order-by values to start or end at, e.g. \(flag) '[10]', or leave it out")
                }
                return values
            }
            return [value]
        }

        /// Of the given flags, the one whose last occurrence in `arguments` comes last (`--flag value` or
        /// `--flag=value`), with its value.
        static func lastGiven(_ flags: [(String, String?)], in arguments: [String]) -> (String, String)? {
            var best: (position: Int, flag: String, value: String)?
            for case (let flag, let value?) in flags {
                let position =
                    arguments.lastIndex { $0 == flag || $0.hasPrefix(flag + "=") } ?? -1
                if best == nil || position > (best?.position ?? -1) { best = (position, flag, value) }
            }
            return best.map { ($0.flag, $0.value) }
        }
    }

    struct Stats: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show billed reads, writes and deletes per collection and per operation (Firestore's billing).")

        @Flag(help: "Set the counters back to zero.") var reset = false
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                if reset {
                    try await store.resetCosts()
                    Output.print("cost counters reset")
                    return
                }
                let report = try await store.costs()
                let index = try await store.indexStatus()
                let log = try await store.changeLogStatus()
                if globals.json {
                    var json = report.json.objectValue ?? [:]
                    json["queries"] = report.queries.json
                    if let index { json["index"] = index.json }
                    if let log {
                        json["changeLog"] = .object([
                            "records": .int(Int64(log.records)), "horizon": .int(log.horizon),
                            "lastSequence": .int(log.lastSequence),
                        ])
                    }
                    Output.json(.object(json))
                } else {
                    Output.print(DocumentsCommandSupport.render(report))
                    if let index { Output.print("\n" + DocumentsCommandSupport.render(index)) }
                    if let log { Output.print(DocumentsCommandSupport.render(log)) }
                }
            }
        }
    }
}

/// Runs `body` with the context's Documents store; the context closes it when the command ends (flushing cost
/// counters and leaving the index cheap for the next process).
func withStore(_ context: SuiteContext, _ body: (DocumentStore) async throws -> Void) async throws {
    try await body(try await context.documentStore())
}

/// The JSON text of a document argument: the argument itself, `-` for standard input, `@FILE` for a file's contents
/// (a document over the shell's argument limit, ~128 KiB, goes through a file or a pipe, as `batch` takes it).
func jsonArgument(_ argument: String) throws -> String {
    if argument == "-" {
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
    guard argument.hasPrefix("@") else { return argument }
    let file = String(argument.dropFirst())
    guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else {
        throw SuiteError(.notFound, "cannot read JSON file \(file)", hint: "give a JSON text, @FILE or - for stdin")
    }
    return contents
}

/// Prints a write's or read's resulting document.
func printDocument(_ snapshot: DocumentSnapshot, json: Bool) {
    if json {
        Output.json(snapshot.json)
    } else {
        Output.print(DocumentsCommandSupport.render(snapshot))
    }
}
