import Foundation
import StorageAccounting
import SuiteCore
import SuiteTestSupport
import Testing

/// The README's scan, report and cleanup plan (its snippet is compiled in Tests/ReadmeSnippetTests), run below.
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
    @Test("the README's scan example runs")
    func readmeSnippetRuns() async throws {
        let data = try TestSupport.makeTemporaryDirectory("readme")
        let app = try TestTree("readme-app")
        try app.file("chats/chat-42/m1.mp4", size: 1000)
        try await storageReadmeSnippet(dataDirectory: data.path, appData: app.root, bus: EventBus())
    }
}
