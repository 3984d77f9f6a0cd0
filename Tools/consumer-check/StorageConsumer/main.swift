// A newcomer's program on the StorageAccounting product alone: the README's first example over a small tree the
// script made, checking the totals against what the script measured with stat(1). Tools/consumer-check.sh builds
// and runs it.
import Foundation
import StorageAccounting
import SuiteCore

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("StorageConsumer: \(message())\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
check(
    arguments.count == 7,
    "usage: StorageConsumer DATA-DIRECTORY APP-DATA ITEMS LOGICAL-BYTES ALLOCATED-BYTES CHAT-42-VIDEO-ALLOCATED-BYTES")
let dataDirectory = arguments[1]
let appData = arguments[2]
let (items, logical, allocated, videoAllocated) = (
    Int(arguments[3]), Int64(arguments[4]), Int64(arguments[5]), Int64(arguments[6])
)

// MARK: - The README's example

let bus = EventBus()
let index = try SQLiteStorageIndex(path: dataDirectory + "/storage.sqlite")
let scanner = StorageScanner(index: index, bus: bus)
let rules = [try LayoutRule("chats/{groupId}/{contentId}.{ext}", service: "chat")]
_ = try await scanner.scan(root: appData, options: StorageScanOptions(layout: rules)) { progress in
    print("\(progress.unitsDone)/\(progress.unitsTotal) units, \(progress.files) files")
}
let report = try await index.report(topGroups: 10)  // allocatedBytes, logicalBytes, items, categories, groups
let plan = try await StorageCleaner(index: index).plan(StorageFilter(groups: ["chat-42"], categories: [.video]))
print(report.allocatedBytes, plan.freed.allocatedBytes)

// MARK: - Checks

check(report.items == items, "the report counts \(report.items) items, expected \(items ?? -1)")
check(report.logicalBytes == logical, "logical bytes \(report.logicalBytes), expected \(logical ?? -1)")
check(report.allocatedBytes == allocated, "allocated bytes \(report.allocatedBytes), expected \(allocated ?? -1)")
check(
    Set(report.groups.map(\.groupId)) == ["chat-42", "chat-7"], "groups \(report.groups.map(\.groupId))")
check(plan.freed.items == 1, "the plan frees \(plan.freed.items) items, expected chat-42's one video")
check(
    plan.freed.allocatedBytes == videoAllocated,
    "the plan frees \(plan.freed.allocatedBytes) B, expected \(videoAllocated ?? -1)")
print(
    "StorageConsumer: ok (\(report.items) items, \(report.logicalBytes) B logical, \(report.allocatedBytes) B allocated)"
)
