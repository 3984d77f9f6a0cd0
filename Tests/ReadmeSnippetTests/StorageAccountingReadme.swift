// swift-format-ignore-file
// Modules/StorageAccounting/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// StorageAccountingTests' `readmeSnippetRuns` runs the same calls on a test tree.
import StorageAccounting
import SuiteCore

func storageAccountingReadme(dataDirectory: String, appData: String, bus: EventBus) async throws {
    let index = try SQLiteStorageIndex(path: dataDirectory + "/storage.sqlite")
    let scanner = StorageScanner(index: index, bus: bus)
    let rules = [try LayoutRule("chats/{groupId}/{contentId}.{ext}", service: "chat")]
    _ = try await scanner.scan(root: appData, options: StorageScanOptions(layout: rules)) { progress in
        print("\(progress.unitsDone)/\(progress.unitsTotal) units, \(progress.files) files")
    }
    let report = try await index.report(topGroups: 10)  // allocatedBytes, logicalBytes, items, categories, groups
    let plan = try await StorageCleaner(index: index).plan(StorageFilter(groups: ["chat-42"], categories: [.video]))
    print(report.allocatedBytes, plan.freed.allocatedBytes)
}
