import ArgumentParser
import Foundation
import SuiteHost

extension StorageCommand {
    struct Reconcile: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "reconcile",
            abstract: "Compare the index with the disk: missing files, files not indexed, size drift; --fix repairs.",
            discussion: """
                The cheap mode compares directory modification times and rescans the directories that changed; it \
                cannot see a file appended to or rewritten in place (its directory's time does not change): --full \
                lstat's every indexed file. --when-idle waits until the 1-minute load average is under --load.
                """)

        @Argument(help: "A scanned root (default: every scanned root).") var root: String?
        @Flag(help: "lstat every indexed file instead of comparing directory times.") var full = false
        @Flag(help: "Rescan what differs, so the index matches the disk.") var fix = false
        @Flag(help: "Wait until the machine is idle (load average under --load) before starting.") var whenIdle = false
        @Option(help: ArgumentHelp("The load average under which the machine counts as idle.", valueName: "load"))
        var load = 1.0
        @Option(help: ArgumentHelp("With --when-idle, give up after this many seconds.", valueName: "seconds"))
        var maxWait = 3_600
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            guard load > 0, maxWait >= 0 else {
                throw SuiteError(.invalidArgument, "--load must be above 0 and --max-wait at least 0")
            }
            let reconciler = Reconciler(scanner: try await context.storageScanner(), logger: context.logger)
            let mode: ReconcileMode = full ? .full : .cheap
            let work: @Sendable () async throws -> [ReconcileReport] = { [root, fix] in
                if let root { return [try await reconciler.reconcile(root: root, mode: mode, fix: fix)] }
                return try await reconciler.reconcileAll(mode: mode, fix: fix)
            }
            let reports: [ReconcileReport]
            if whenIdle {
                let scheduler = IdleScheduler(threshold: load, interval: .seconds(5))
                if !globals.json, try !scheduler.isIdle() {
                    FileHandle.standardError.write(Data("waiting for the load average to fall under \(load)…\n".utf8))
                }
                guard let done = try await scheduler.runWhenIdle(maxWait: .seconds(maxWait), work) else {
                    throw SuiteError(
                        .unsupported, "the load average stayed at or above \(load) for \(maxWait) s; nothing was done",
                        hint: "raise --load or --max-wait, or run without --when-idle")
                }
                reports = done
            } else {
                reports = try await work()
            }
            if globals.json {
                Output.json(.array(try reports.map { try StorageCommand.json($0) }))
                return
            }
            if reports.isEmpty { Output.print("nothing scanned yet: run `suite storage scan DIR`") }
            for report in reports {
                let counts = report.counts
                Output.print(
                    "\(report.root) (\(report.mode.rawValue)): "
                        + (report.isConsistent
                            ? "the index matches the disk"
                            : "\(counts.missingFiles) missing, \(counts.unindexedFiles) not indexed, "
                                + "\(counts.drifted) changed size, \(counts.changedDirectories) directories changed, "
                                + "\(counts.missingDirectories) gone"
                                + (report.fixed ? " — fixed" : " — run again with --fix to repair")))
                for path in report.missingFiles.prefix(10) { Output.print("  missing      \(path)") }
                for path in report.unindexedFiles.prefix(10) { Output.print("  not indexed  \(path)") }
                for drift in report.drifted.prefix(10) {
                    Output.print(
                        "  changed      \(drift.path) (\(drift.indexedLogicalBytes) → \(drift.diskLogicalBytes) bytes)")
                }
                for limitation in report.limitations { Output.print("  note: \(limitation)") }
            }
        }
    }

    struct Clean: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "clean",
            abstract: "Delete by category, group, item or age. A dry run unless --yes.",
            discussion: """
                Shows what would be freed (hard links counted: a file is freed only when all its links go). With \
                --yes, deletes the files and their index rows together; never outside the scanned roots (paths \
                through a symbolic link or with .. are refused). Example: \
                suite storage clean --category video --older-than 90d --yes
                """)

        @Option(name: .customLong("category"), help: ArgumentHelp("A category (repeatable).", valueName: "category"))
        var categories: [String] = []
        @Option(name: .customLong("group"), help: ArgumentHelp("A group id (repeatable).", valueName: "id"))
        var groups: [String] = []
        @Option(name: .customLong("item"), help: ArgumentHelp("An item id (repeatable).", valueName: "id"))
        var items: [String] = []
        @Option(help: ArgumentHelp("Only this service.", valueName: "name")) var service: String?
        @Option(help: ArgumentHelp("Only files last modified before this day, time or age (90d).", valueName: "when"))
        var olderThan: String?
        @Flag(help: "Delete (without it, only show what would be freed).") var yes = false
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let filter = StorageFilter(
                services: service.map { [$0] } ?? [], groups: groups,
                categories: try categories.map(StorageCommand.category), ids: items,
                modifiedBefore: try olderThan.map { try AnalyticsCommand.parseSince($0, now: context.clock.now) })
            guard !filter.isEmpty else {
                throw SuiteError(
                    .invalidArgument, "say what to clean",
                    hint: "use --category, --group, --item, --service or --older-than; e.g. --category video")
            }
            let cleaner = try await context.storageCleaner()
            guard yes else {
                let plan = try await cleaner.plan(filter)
                if globals.json {
                    Output.json(try StorageCommand.json(plan))
                    return
                }
                Output.print(
                    "would free \(StorageCommand.bytes(plan.freed.allocatedBytes)) "
                        + "(\(plan.freed.items) items"
                        + (plan.freed.itemsKeptByOtherLinks > 0
                            ? ", \(plan.freed.itemsKeptByOtherLinks) kept on disk by other links" : "") + ")")
                if !plan.groups.isEmpty {
                    Output.print("")
                    Output.print(StorageCommand.groupTable(plan.groups, total: plan.freed.allocatedBytes).render())
                }
                Output.print("")
                Output.print("dry run: nothing was deleted; add --yes to delete")
                return
            }
            let result = try await cleaner.execute(filter)
            if globals.json {
                Output.json(try StorageCommand.json(result))
                return
            }
            Output.print(
                "deleted \(result.deleted) items, freed \(StorageCommand.bytes(result.freedAllocatedBytes))"
                    + (result.alreadyMissing > 0 ? "; \(result.alreadyMissing) were already gone" : ""))
            for refusal in result.refused.prefix(20) {
                Output.print("  refused \(refusal.path ?? refusal.id): \(refusal.reason)")
            }
            if !result.refused.isEmpty {
                throw SuiteError(
                    .unsupported, "\(result.refused.count) items were not deleted",
                    hint: "their paths leave the managed roots or go through a link; see the lines above")
            }
        }
    }

    struct AppSizeCommand: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "app-size",
            abstract: "An app's size: bundle + (data − caches) + app-group containers, in allocated bytes.")

        @Option(help: ArgumentHelp("The app's bundle (install) directory.", valueName: "dir")) var bundle: String?
        @Option(help: ArgumentHelp("The app's data directory.", valueName: "dir")) var data: String?
        @Option(help: ArgumentHelp("Its caches directory (inside data or not).", valueName: "dir")) var caches: String?
        @Option(
            name: .customLong("group"), help: ArgumentHelp("An app-group container (repeatable).", valueName: "dir"))
        var groups: [String] = []
        @OptionGroup var globals: GlobalOptions
        var runsServices: Bool { false }

        func run(_ context: SuiteContext) async throws {
            let configured = try context.settings(of: StorageModule.self).appSize
            guard let bundle = bundle ?? configured["bundle"]?.stringValue,
                let data = data ?? configured["data"]?.stringValue
            else {
                throw SuiteError(
                    .invalidArgument, "app-size needs the bundle and data directories",
                    hint: "pass --bundle DIR --data DIR [--caches DIR] [--group DIR]…, or set storage.app-size")
            }
            let groupList =
                groups.isEmpty ? (configured["groups"]?.arrayValue?.compactMap(\.stringValue) ?? []) : groups
            let size = try await AppSize.measure(
                bundle: bundle, data: data, caches: caches ?? configured["caches"]?.stringValue, groups: groupList)
            if globals.json {
                Output.json(try StorageCommand.json(size))
                return
            }
            var table = TextTable(["PART", "SIZE", ""], alignments: [.left, .right])
            let total = size.totalBytes
            table.append([
                "bundle", StorageCommand.bytes(size.bundleBytes), StorageCommand.bar(size.bundleBytes, of: total),
            ])
            let dataOnly = size.dataBytes - size.cachesBytes
            table.append(["data − caches", StorageCommand.bytes(dataOnly), StorageCommand.bar(dataOnly, of: total)])
            table.append(["(caches, not counted)", StorageCommand.bytes(size.cachesBytes), ""])
            for group in size.groups {
                table.append([
                    "group \(group.path)", StorageCommand.bytes(group.bytes),
                    StorageCommand.bar(group.bytes, of: total),
                ])
            }
            table.append(["app size", StorageCommand.bytes(total), ""])
            Output.print(table.render())
            for warning in size.warnings.prefix(10) { Output.print("  warning: \(warning)") }
        }
    }

    struct Watch: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Redraw the largest groups as the index changes (until Ctrl-C); --json prints each change.")
        @Option(name: .shortAndLong, help: "How many groups to show.") var number = 15
        @Option(help: ArgumentHelp("How often to look, in seconds.", valueName: "seconds")) var interval = 1.0
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            guard number >= 1, interval > 0 else {
                throw SuiteError(.invalidArgument, "-n must be at least 1 and --interval above 0")
            }
            let index = try await context.storageIndex()
            var previous = StorageSnapshot(rows: [])
            let interactive = isatty(1) != 0
            var first = true
            while !Task.isCancelled {
                let snapshot = StorageSnapshot(
                    rows: try await index.groups(.all, sort: .size, limit: number))
                let diff = snapshot.difference(from: previous)
                if first || !diff.isEmpty {
                    if globals.json {
                        Output.print(try StorageCommand.json(diff).jsonString)
                    } else {
                        let total = try await index.total()
                        if interactive { Output.print("\u{1B}[H\u{1B}[2J", terminator: "") }
                        Output.print(
                            "storage: \(StorageCommand.bytes(total.allocatedBytes)) in \(total.items) items  "
                                + "(+\(diff.inserted.count) −\(diff.removed.count) ~\(diff.updated.count) "
                                + "↕\(diff.moved.count))")
                        Output.print(StorageCommand.groupTable(snapshot.rows, total: total.allocatedBytes).render())
                    }
                    Output.flush()
                }
                previous = snapshot
                first = false
                try await Task.sleep(for: .milliseconds(Int(interval * 1_000)))
            }
        }
    }
}
