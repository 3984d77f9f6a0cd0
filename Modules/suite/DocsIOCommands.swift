import ArgumentParser
import Foundation
import SuiteHost

extension DocsCommand {
    struct Import: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import documents from a JSON Lines file ({\"id\":…,\"data\":{…}} per line), streaming.",
            discussion: """
                Documents are set (replaced) in atomic chunks of --chunk-size (5,000 by default); the import as a \
                whole is not atomic. A progress bar shows on stderr. A bad line stops the import with its line \
                number; the chunks before it stay imported.
                """)

        @Argument(help: "The collection path to import into.") var collection: String
        @Argument(help: "The .jsonl file, or - for standard input.") var file: String
        @Option(help: "Documents per atomic commit (larger is faster and uses more memory).") var chunkSize: Int = 5000
        @OptionGroup var globals: GlobalOptions

        func validate() throws {
            guard chunkSize >= 1 else {
                throw ValidationError("--chunk-size must be at least 1")
            }
        }

        func run(_ context: SuiteContext) async throws {
            let handle: FileHandle
            var total: UInt64 = 0
            if file == "-" {
                handle = .standardInput
            } else {
                guard let opened = FileHandle(forReadingAtPath: file) else {
                    throw SuiteError(.notFound, "cannot open \(file)", hint: "give a .jsonl file, or - for stdin")
                }
                handle = opened
                total = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? UInt64) ?? 0
            }
            try await withStore(context) { store in
                let target = try store.collection(collection)
                let progress = Progress(total: total, label: "import")
                var reader = LineReader(handle: handle)
                let importer = store.importer(into: target, chunkSize: chunkSize)
                var lineNumber = 0
                while let line = try reader.next() {
                    lineNumber += 1
                    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                    let id: String?
                    let data: DocumentData
                    do {
                        (id, data) = try Self.parse(line, lineNumber: lineNumber, imported: importer.committedCount)
                    } catch {
                        await importer.abandon()
                        throw error
                    }
                    do {
                        try await importer.add(id: id, data: data)
                    } catch let error as DocumentsError {
                        await importer.abandon()
                        // A rejected document (its position is the importer's; the line number is ours).
                        guard let cause = error.underlying as? DocumentsError, error.message.hasPrefix("document ")
                        else { throw error }
                        throw SuiteError(
                            .invalidArgument, "line \(lineNumber): \(cause.message)",
                            hint: cause.hint
                                ?? "\(importer.committedCount) document(s) were imported before this line")
                    }
                    if lineNumber & 255 == 0 {
                        progress.update(bytes: reader.bytesRead, items: importer.committedCount)
                    }
                }
                let imported = try await importer.finish()
                progress.finish(bytes: reader.bytesRead, items: imported)
                let slowest = importer.slowestCommit
                let seconds = Double(slowest.components.seconds) + Double(slowest.components.attoseconds) / 1e18
                if globals.json {
                    Output.print(
                        JSONValue.object([
                            "imported": .int(Int64(imported)), "slowestCommitSeconds": .double(seconds),
                        ]).jsonString)
                } else {
                    let slowestText = String(format: "%.3f", seconds)
                    Output.print("imported \(imported) document(s) into \(collection); slowest commit \(slowestText) s")
                }
            }
        }

        static func parse(_ line: [UInt8], lineNumber: Int, imported: Int) throws -> (String?, DocumentData) {
            let where_ = "line \(lineNumber)"
            let hint = #"each line is {"id":"u1","data":{…}} (id optional); \#(imported) document(s) were imported"#
            let json: JSONValue
            do {
                json = try line.withUnsafeBytes { try JSONValue(parsing: $0) }
            } catch let error as SuiteError {
                throw SuiteError(.invalidArgument, "\(where_): \(error.message)", hint: hint)
            }
            guard let data = json["data"], data.objectValue != nil else {
                throw SuiteError(.invalidArgument, "\(where_): missing \"data\" object", hint: hint)
            }
            let id = json["id"]
            if let id, id.stringValue == nil {
                throw SuiteError(.invalidArgument, "\(where_): \"id\" must be a string", hint: hint)
            }
            do {
                return (id?.stringValue, try DocumentJSON.data(from: data))
            } catch let error as any SuiteDescribedError {
                throw SuiteError(.invalidArgument, "\(where_): \(error.message)", hint: error.hint ?? hint)
            }
        }
    }

    struct Export: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export a collection as JSON Lines ({\"id\":…,\"data\":{…}} per line), in id order.")

        @Argument(help: "The collection path.") var collection: String
        @Option(help: "Write to this file instead of standard output.") var out: String?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let output: FileHandle
            if let out {
                guard FileManager.default.createFile(atPath: out, contents: nil),
                    let handle = FileHandle(forWritingAtPath: out)
                else {
                    throw SuiteError(.io, "cannot write \(out)", hint: "check the directory exists and is writable")
                }
                output = handle
            } else {
                output = .standardOutput
            }
            try await withStore(context) { store in
                let base = try store.collection(collection).query.order(by: FieldPath.documentID).limit(to: 1000)
                var last: DocumentSnapshot?
                var exported = 0
                while true {
                    let page = try await (last.map { base.start(afterDocument: $0) } ?? base).getDocuments()
                    var text = ""
                    for document in page.documents {
                        let line: JSONValue = [
                            "id": .string(document.documentID),
                            "data": DocumentJSON.json(from: document.data ?? [:]),
                        ]
                        text += line.jsonString + "\n"
                    }
                    output.write(Data(text.utf8))
                    exported += page.documents.count
                    guard page.documents.count == 1000, let next = page.documents.last else { break }
                    last = next
                }
                if out != nil {
                    try output.close()
                    FileHandle.standardError.write(Data("exported \(exported) document(s) to \(out ?? "")\n".utf8))
                }
            }
        }
    }

    struct Watch: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Print each change to a document or a query as a JSON line, as writes land (any process).",
            discussion: """
                A document path prints its snapshot after each change. A collection prints one line per change: \
                {"type":"added|modified|removed","path","oldIndex","newIndex","document":{…}}, starting with the \
                current documents as "added". With --remote the replica follows the server's feed meanwhile, so \
                writes through other replicas show within moments.
                """)

        @Argument(help: "A document path or a collection path.") var target: String
        @Option(name: .customLong("where"), help: ArgumentHelp("A filter: FIELD OP VALUE.", valueName: "expr"))
        var filters: [String] = []
        @Option(help: "Exit after printing N lines.") var count: Int?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            // A replica follows the server's feed meanwhile, so other replicas' writes show within moments.
            let follower = try await context.syncClient().map { client in
                Task {
                    try await client.follow(onOffline: { error, _ in
                        FileHandle.standardError.write(Data("sync: \(error.message); retrying\n".utf8))
                    })
                }
            }
            defer { follower?.cancel() }
            try await withStore(context) { store in
                var printed = 0
                func emit(_ line: JSONValue) -> Bool {
                    FileHandle.standardOutput.write(Data((line.jsonString + "\n").utf8))
                    printed += 1
                    return count.map { printed >= $0 } ?? false
                }
                let segments = target.split(separator: "/", omittingEmptySubsequences: false).count
                if segments % 2 == 0 {
                    guard filters.isEmpty else {
                        throw SuiteError(.invalidArgument, "--where applies to a collection, not to document \(target)")
                    }
                    for try await snapshot in try store.document(target).snapshots() {
                        var line = snapshot.json.objectValue ?? [:]
                        line["exists"] = .bool(snapshot.exists)
                        if emit(.object(line)) { return }
                    }
                } else {
                    var query = try store.collection(target).query
                    for expression in filters { query = try query.whereExpression(expression) }
                    for try await snapshot in query.snapshots() {
                        for change in snapshot.documentChanges {
                            let line = change.json
                            if emit(line) { return }
                        }
                    }
                }
            }
        }
    }

    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Declare, list, drop, verify and rebuild indexes (single-field indexes are automatic).",
            subcommands: [IndexAdd.self, IndexList.self, IndexDrop.self, IndexVerify.self, IndexRebuild.self])
    }

    struct IndexAdd: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Declare a composite index and backfill it: suite docs index add users city:asc points:desc")

        @OptionGroup var index: IndexArguments
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let definition = try index.definition()
                try await store.declareIndex(definition)
                if globals.json { Output.json(definition.json) } else { Output.print("index ready: \(definition)") }
            }
        }
    }

    struct IndexList: SuiteSubcommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List declared indexes.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let indexes = try await store.indexes()
                if globals.json {
                    Output.json(.array(indexes.map(\.json)))
                } else if indexes.isEmpty {
                    Output.print("no composite indexes (every single field is indexed automatically)")
                } else {
                    var table = TextTable(["COLLECTION", "SCOPE", "FIELDS"])
                    for index in indexes {
                        table.append([
                            index.collectionID, index.scope.rawValue,
                            index.fields.map { "\($0.fieldPath.canonicalString) \($0.order.rawValue)" }
                                .joined(separator: ", "),
                        ])
                    }
                    Output.print(table.render())
                }
            }
        }
    }

    struct IndexDrop: SuiteSubcommand {
        static let configuration = CommandConfiguration(commandName: "drop", abstract: "Drop a declared index.")
        @OptionGroup var index: IndexArguments
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            try await withStore(context) { store in
                let definition = try index.definition()
                guard try await store.indexes().contains(definition) else {
                    throw DocumentsError(
                        .notFound, "no index \(definition) to drop",
                        hint: "`suite docs index list` shows the declared indexes")
                }
                try await store.dropIndex(definition)
                if globals.json { Output.json(definition.json) } else { Output.print("index dropped: \(definition)") }
            }
        }
    }
}

/// The index named on the command line, shared by `index add` and `index drop`.
struct IndexArguments: ParsableArguments {
    @Argument(help: "The collection id (e.g. users, or orders for users/*/orders).") var collection: String
    @Argument(help: "Fields in order: FIELD, FIELD:asc, FIELD:desc or FIELD:contains.") var fields: [String]
    @Flag(help: "Collection-group scope (for --group queries).") var group = false

    func definition() throws -> IndexDefinition {
        IndexDefinition(
            collectionID: collection, scope: group ? .collectionGroup : .collection,
            fields: try fields.map(IndexDefinition.Field.init(parsing:)))
    }
}

/// Reads a file line by line in 1 MiB chunks, so huge imports stream in constant memory.
struct LineReader {
    let handle: FileHandle
    var buffer: [UInt8] = []
    var position = 0
    var finished = false
    var bytesRead: UInt64 = 0

    init(handle: FileHandle) { self.handle = handle }

    mutating func next() throws -> [UInt8]? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                let line = Array(buffer[position..<newline])
                position = newline + 1
                return line
            }
            if finished {
                guard position < buffer.count else { return nil }
                let line = Array(buffer[position...])
                position = buffer.count
                return line
            }
            buffer.removeFirst(position)
            position = 0
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { finished = true }
            bytesRead += UInt64(chunk.count)
            buffer.append(contentsOf: chunk)
        }
    }
}

/// A progress bar on stderr: redrawn in place on a terminal, a line every few seconds otherwise.
final class Progress {
    let total: UInt64
    let label: String
    let start = ContinuousClock.now
    let interactive = isatty(2) != 0
    var lastDraw = ContinuousClock.now

    init(total: UInt64, label: String) {
        self.total = total
        self.label = label
    }

    /// Redraws at most every 100 ms on a terminal; writes a line every 5 s otherwise (logs, pipes).
    func update(bytes: UInt64, items: Int) {
        let interval: Duration = interactive ? .milliseconds(100) : .seconds(5)
        guard ContinuousClock.now - lastDraw > interval else { return }
        lastDraw = .now
        draw(bytes: bytes, items: items, end: interactive ? "\r" : "\n")
    }

    func finish(bytes: UInt64, items: Int) {
        draw(bytes: bytes, items: items, end: "\n")
    }

    private func draw(bytes: UInt64, items: Int, end: String) {
        let elapsed = max((ContinuousClock.now - start) / .seconds(1), 0.001)
        let rate = Int(Double(items) / elapsed)
        var line = "\(label): \(items) documents, \(rate)/s"
        if total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let filled = Int(fraction * 30)
            line =
                "\(label) [" + String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
                + "] \(Int(fraction * 100))%  " + "\(items) documents, \(rate)/s"
        }
        FileHandle.standardError.write(Data((line + end).utf8))
    }
}
