import Foundation
import StorageAccounting
import SuiteCore
import SuiteTestSupport
import Testing

/// The README's example as written (compiled; `readmeSnippetIsCompiled` checks it matches the README).
func storageReadmeSnippet(dataDirectory: String, appData: String, bus: EventBus) async throws {
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

@Suite("README")
struct ReadmeTests {
    @Test("the README's Swift block is compiled, line for line, and runs")
    func readmeSnippetIsCompiled() async throws {
        let root = TestSupport.repositoryRoot.path
        let readme = try String(contentsOfFile: root + "/Modules/StorageAccounting/README.md", encoding: .utf8)
        let compiled = try String(
            contentsOfFile: root + "/Tests/StorageAccountingTests/ReadmeSnippets.swift", encoding: .utf8)
        let lines = compiled.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var inBlock = false
        var checked = 0
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "```swift" {
                inBlock = true
            } else if line == "```" {
                inBlock = false
            } else if inBlock {
                #expect(lines.contains(line.trimmingCharacters(in: .whitespaces)), "not compiled: \(line)")
                checked += 1
            }
        }
        #expect(checked > 5)
        let data = try TestSupport.makeTemporaryDirectory("readme")
        let app = try TestTree("readme-app")
        try app.file("chats/chat-42/m1.mp4", size: 1000)
        try await storageReadmeSnippet(dataDirectory: data.path, appData: app.root, bus: EventBus())
    }
}
