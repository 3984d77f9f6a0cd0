import ArgumentParser
import Foundation
import SuiteHost

/// `suite storage …`: LINE's storage index on any directory of app data.
struct StorageCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Index a directory of app data once, then answer totals, groups and cleanups without rescanning.",
        discussion: """
            `scan` walks a root once (groups are usable as soon as each is committed; an interrupted scan resumes); \
            every other command answers from the index in milliseconds. Sizes are allocated bytes (what the disk \
            gives up, st_blocks × 512), hard links counted once; --json gives logical bytes too.
            """,
        subcommands: [
            Scan.self, Report.self, Groups.self, Group.self, Top.self, Reconcile.self, Clean.self, AppSizeCommand.self,
            Watch.self,
        ])

    struct Scan: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "scan",
            abstract: "Index a directory (or every configured root), with a progress bar on stderr.",
            discussion: """
                Layout rules map paths to service, group and content: `chats/{groupId}/{contentId}.{ext}`, with \
                `*` and `**`; prefix `service=` to name the service of the files a rule matches. Files no rule \
                matches go to a group per top-level directory. Example: \
                suite storage scan ~/app --layout 'chat=chats/{groupId}/**' --service files
                """)

        @Argument(help: "The directory to index (default: the configured roots).") var root: String?
        @Option(name: .customLong("layout"), help: ArgumentHelp("A layout rule (repeatable).", valueName: "rule"))
        var layouts: [String] = []
        @Option(help: ArgumentHelp("The service of files no rule names.", valueName: "name")) var service = "files"
        @Flag(help: "Read the first bytes of files whose extension says nothing, for their content type.")
        var sniff = false
        @Flag(help: "Start over instead of resuming an interrupted scan.") var restart = false
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let roots: [StorageModule.Root]
            if let root {
                roots = [StorageModule.Root(path: root, service: service, layout: layouts, sniff: sniff)]
            } else {
                roots = try context.settings(of: StorageModule.self).roots
                guard !roots.isEmpty else {
                    throw SuiteError(
                        .invalidArgument, "no directory to scan",
                        hint: "name one (suite storage scan DIR) or list roots under storage.roots in the configuration"
                    )
                }
            }
            let scanner = try await context.storageScanner()
            var results: [StorageScanResult] = []
            for root in roots {
                let rules = try root.layout.map { text in
                    try StorageCommand.rule(text)
                }
                let options = StorageScanOptions(
                    layout: rules, service: root.service, sniffContent: root.sniff, restart: restart)
                let bar = globals.json ? nil : ScanProgressBar(root: root.path)
                let result = try await scanner.scan(root: root.path, options: options) { progress in
                    bar?.update(progress)
                }
                bar?.finish()
                results.append(result)
            }
            if globals.json {
                Output.json(.array(try results.map { try StorageCommand.json($0) }))
                return
            }
            for result in results {
                // The index's answer for the root: hard links counted once, as `du` does.
                let usage = try await context.storageIndex().usage(StorageFilter(roots: [result.root]))
                Output.print(
                    "\(result.root): \(usage.items) items, \(StorageCommand.bytes(usage.allocatedBytes)) "
                        + "(\(StorageCommand.bytes(usage.logicalBytes)) logical); walked \(result.files) files in "
                        + "\(result.unitsWalked) of \(result.unitsTotal) units, "
                        + String(format: "%.2f s", result.durationSeconds)
                        + (result.unitsResumed > 0 ? "; resumed: \(result.unitsResumed) units were already done" : "")
                        + (result.removedItems > 0 ? "; \(result.removedItems) items no longer on disk removed" : ""))
                for warning in result.warnings.prefix(20) { Output.print("  warning: \(warning)") }
                if result.warnings.count > 20 { Output.print("  … \(result.warnings.count - 20) more warnings") }
            }
        }
    }

    struct Report: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Total, categories and the largest groups, as tables with bars.")
        @Option(name: .shortAndLong, help: "How many groups to show.") var groups = 10
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard groups >= 0 else { throw SuiteError(.invalidArgument, "--groups must be ≥ 0, not \(groups)") }
            let report = try await context.storageIndex().report(topGroups: groups)
            if globals.json {
                Output.json(try StorageCommand.json(report))
                return
            }
            guard report.items > 0 else {
                Output.print("nothing indexed yet: run `suite storage scan DIR`")
                return
            }
            Output.print(
                "total  \(StorageCommand.bytes(report.allocatedBytes)) allocated, "
                    + "\(StorageCommand.bytes(report.logicalBytes)) logical, \(report.items) items")
            Output.print("")
            var categories = TextTable(["CATEGORY", "SIZE", "ITEMS", ""], alignments: [.left, .right, .right])
            for line in report.categories {
                categories.append([
                    line.category.rawValue, StorageCommand.bytes(line.usage.allocatedBytes), "\(line.usage.items)",
                    StorageCommand.bar(line.usage.allocatedBytes, of: report.allocatedBytes),
                ])
            }
            Output.print(categories.render())
            Output.print("")
            Output.print(StorageCommand.groupTable(report.groups, total: report.allocatedBytes).render())
        }
    }

    struct Groups: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "groups", abstract: "Every group, largest first (or by count, name).")
        @Option(help: ArgumentHelp("size, count or name.", valueName: "order")) var sort = "size"
        @Option(help: ArgumentHelp("Only this service.", valueName: "name")) var service: String?
        @Option(help: "Show at most this many groups.") var limit: Int?
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard let order = StorageGroupSort(rawValue: sort) else {
                throw SuiteError(
                    .invalidArgument, "--sort must be size, count or name, not '\(sort)'",
                    hint: Suggestion.didYouMean(sort, among: StorageGroupSort.allCases.map(\.rawValue), what: "orders"))
            }
            if let limit, limit < 1 { throw SuiteError(.invalidArgument, "--limit must be at least 1") }
            let index = try await context.storageIndex()
            let filter = StorageFilter(services: service.map { [$0] } ?? [])
            let groups = try await index.groups(filter, sort: order, limit: limit)
            if globals.json {
                Output.json(.array(try groups.map { try StorageCommand.json($0) }))
                return
            }
            guard !groups.isEmpty else {
                Output.print("no groups\(service.map { " in service \($0)" } ?? ""): run `suite storage scan DIR`")
                return
            }
            let total = try await index.usage(filter).allocatedBytes
            Output.print(StorageCommand.groupTable(groups, total: total).render())
        }
    }

    struct Group: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "group",
            abstract: "One group: its size per category and its largest items.")
        @Argument(help: "The group id, as `suite storage groups` shows it.") var id: String
        @Option(help: ArgumentHelp("Only in this service.", valueName: "name")) var service: String?
        @Option(name: .shortAndLong, help: "How many of its largest items to show.") var number = 10
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard number >= 0 else { throw SuiteError(.invalidArgument, "-n must be ≥ 0, not \(number)") }
            let index = try await context.storageIndex()
            guard
                let detail = try await index.group(id, services: service.map { [$0] } ?? [], largest: number)
            else {
                let known = try await index.groups(.all, sort: .size, limit: 200).map(\.groupId)
                throw SuiteError(
                    .notFound, "no group '\(id)' in the index",
                    hint: Suggestion.didYouMean(id, among: known, what: "groups"))
            }
            if globals.json {
                Output.json(try StorageCommand.json(detail))
                return
            }
            Output.print(
                "group \(detail.groupId) (\(detail.services.joined(separator: ", "))): "
                    + "\(StorageCommand.bytes(detail.usage.allocatedBytes)), \(detail.usage.items) items")
            Output.print("")
            var categories = TextTable(["CATEGORY", "SIZE", "ITEMS", ""], alignments: [.left, .right, .right])
            for line in detail.categories {
                categories.append([
                    line.category.rawValue, StorageCommand.bytes(line.usage.allocatedBytes), "\(line.usage.items)",
                    StorageCommand.bar(line.usage.allocatedBytes, of: detail.usage.allocatedBytes),
                ])
            }
            Output.print(categories.render())
            if !detail.largest.isEmpty {
                Output.print("")
                Output.print(StorageCommand.itemTable(detail.largest).render())
            }
        }
    }

    struct Top: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "top", abstract: "The largest items.")
        @Option(name: .shortAndLong, help: "How many.") var number = 20
        @Option(help: ArgumentHelp("Only this category.", valueName: "category")) var category: String?
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            guard number >= 1 else { throw SuiteError(.invalidArgument, "-n must be at least 1, not \(number)") }
            let categories = try category.map { [try StorageCommand.category($0)] } ?? []
            let items = try await context.storageIndex().largest(number, in: StorageFilter(categories: categories))
            if globals.json {
                Output.json(.array(try items.map { try StorageCommand.json($0) }))
                return
            }
            guard !items.isEmpty else {
                Output.print("nothing indexed yet: run `suite storage scan DIR`")
                return
            }
            Output.print(StorageCommand.itemTable(items).render())
        }
    }

    // MARK: - Helpers

    static func rule(_ text: String) throws -> LayoutRule {
        if let equals = text.firstIndex(of: "="), !text[..<equals].contains("/"), !text[..<equals].contains("{") {
            return try LayoutRule(String(text[text.index(after: equals)...]), service: String(text[..<equals]))
        }
        return try LayoutRule(text)
    }

    static func category(_ text: String) throws -> StorageCategory {
        try StorageCategory(parsing: text)
    }

    static func bytes(_ value: Int64) -> String { CacheModule.formatBytes(Int(value)) }

    static func bar(_ value: Int64, of total: Int64, width: Int = 24) -> String {
        let filled = total > 0 ? Int((Double(value) / Double(total) * Double(width)).rounded()) : 0
        return String(repeating: "█", count: max(filled, value > 0 ? 1 : 0))
    }

    static func groupTable(_ groups: [StorageGroupUsage], total: Int64) -> TextTable {
        var table = TextTable(["GROUP", "SERVICE", "SIZE", "ITEMS", ""], alignments: [.left, .left, .right, .right])
        for group in groups {
            table.append([
                group.groupId, group.service, bytes(group.usage.allocatedBytes), "\(group.usage.items)",
                bar(group.usage.allocatedBytes, of: total),
            ])
        }
        return table
    }

    static func itemTable(_ items: [StorageItem]) -> TextTable {
        var table = TextTable(["SIZE", "CATEGORY", "GROUP", "PATH"], alignments: [.right, .left, .left, .left])
        for item in items {
            table.append([
                bytes(item.allocatedBytes), item.category.rawValue, item.groupId,
                item.path?.description ?? item.fileName,
            ])
        }
        return table
    }

    /// Any `Encodable` result as JSON, through its `Codable` form.
    static func json(_ value: some Encodable) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return try JSONValue(parsing: try encoder.encode(value))
    }
}

/// The scan's progress bar on stderr: groups done of total, files, bytes, the current group and the rate; redrawn in
/// place on a terminal, a line every few seconds otherwise.
final class ScanProgressBar: @unchecked Sendable {
    // @unchecked: `lastDraw` is only touched under `lock`.
    private let lock = NSLock()
    private let root: String
    private let interactive = isatty(2) != 0
    private var lastDraw = ContinuousClock.now
    private var last: StorageScanProgress?

    init(root: String) { self.root = root }

    func update(_ progress: StorageScanProgress) {
        lock.withLock {
            last = progress
            let interval: Duration = interactive ? .milliseconds(100) : .seconds(5)
            guard ContinuousClock.now - lastDraw > interval else { return }
            lastDraw = .now
            draw(progress, end: interactive ? "\r" : "\n")
        }
    }

    func finish() {
        lock.withLock {
            if let last, interactive { draw(last, end: "\n") }
        }
    }

    private func draw(_ progress: StorageScanProgress, end: String) {
        let filled = Int(progress.fractionDone * 24)
        let line =
            "scan [" + String(repeating: "█", count: filled) + String(repeating: "░", count: 24 - filled) + "] "
            + "\(progress.unitsDone)/\(progress.unitsTotal) groups, \(progress.files) files, "
            + "\(StorageCommand.bytes(progress.allocatedBytes)), \(Int(progress.filesPerSecond)) files/s"
            + (progress.currentUnit.map { "  \($0)" } ?? "")
        FileHandle.standardError.write(Data((interactive ? "\u{1B}[2K" + line : line).utf8 + Data(end.utf8)))
    }
}
