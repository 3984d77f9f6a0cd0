import Foundation
import GRDB
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("A first scan builds the item indexes at its end")
struct FirstScanTests {
    static func indexNames(_ index: SQLiteStorageIndex) async throws -> Set<String> {
        try await index.pool.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items'"))
        }
    }

    static let allIndexes: Set<String> = ["items_id", "items_group", "items_unit", "items_allocated", "items_links"]
    /// The indexes a first scan keeps while it loads.
    static let keptIndexes: Set<String> = ["items_links", "items_unit"]

    static func tree() throws -> TestTree {
        let tree = try TestTree("first")
        for group in 0..<6 {
            for file in 0..<10 { try tree.file("chats/g\(group)/f\(file).jpg", size: 700 * file + 1) }
        }
        try tree.link("chats/g0/f1.jpg", "chats/g0/f1-again.jpg")
        try tree.link("chats/g0/f2.jpg", "chats/g5/f2-there.jpg")
        return tree
    }

    @Test("into an empty index: loads without the indexes, builds them at the end, totals equal the disk")
    func fresh() async throws {
        let tree = try Self.tree()
        let index = try makeIndex()
        let during = Mutex<[Set<String>]>([])
        let result = try await StorageScanner(index: index, budget: .everyUnit).scan(
            root: tree.root, options: try Self.layout()
        ) { progress in
            if progress.unitsDone > 0, let names = try? await Self.indexNames(index) {
                during.withLock { $0.append(names) }
            }
        }
        #expect(result.files == 62)
        // While loading only the link and unit indexes exist; queries still answer.
        #expect(during.withLock { $0 }.allSatisfy { $0 == Self.keptIndexes } && !during.withLock { $0 }.isEmpty)
        #expect(try await Self.indexNames(index) == Self.allIndexes)
        let sums = ExpectedSums(root: tree.root)
        let total = try await index.total()
        #expect(
            total.items == sums.files && total.allocatedBytes == sums.allocated && total.logicalBytes == sums.logical)
        #expect(try await index.item(id: tree.root + "/chats/g3/f4.jpg")?.groupId == "g3")
        let largest = try await index.items(.all, order: .id, limit: nil).map(\.allocatedBytes).max()
        #expect(try await index.largest(1).first?.allocatedBytes == largest)
        // A second scan replaces unit by unit, with the indexes, and finds the same.
        let again = try await StorageScanner(index: index).scan(root: tree.root, options: try Self.layout())
        #expect(!again.resumed && again.files == 62)
        #expect(try await index.total() == total)
    }

    @Test("an interrupted first scan answers queries, and resumes; a record in between builds the indexes first")
    func interrupted() async throws {
        for recordInBetween in [false, true] {
            let tree = try Self.tree()
            let index = try makeIndex()
            let scanner = StorageScanner(index: index, budget: .everyUnit)
            let layout = try Self.layout()
            let task = Task {
                try await scanner.scan(root: tree.root, options: layout) { progress in
                    if progress.unitsDone >= 4 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
            await #expect(throws: StorageError.self) { try await task.value }
            #expect(try await Self.indexNames(index) == Self.keptIndexes)
            let partial = try await index.total()
            #expect(partial.items > 0 && partial.items < 62)
            #expect(try await index.groups(.all, sort: .name, limit: nil).count == partial.items / 10)
            #expect(try await index.item(id: tree.root + "/chats/g0/f0.jpg") != nil)
            if recordInBetween {
                try await index.record(
                    StorageItem(
                        id: "app/note", serviceType: "notes", groupId: "n", contentId: "1", contentType: "text/plain",
                        sizeInBytes: 10, createdDate: Date(), fileName: "note.txt"))
                #expect(try await Self.indexNames(index) == Self.allIndexes)
            }
            let resumed = try await scanner.scan(root: tree.root, options: layout)
            #expect(resumed.resumed && resumed.unitsResumed >= 4)
            #expect(try await Self.indexNames(index) == Self.allIndexes)
            let sums = ExpectedSums(root: tree.root)
            let total = try await index.total()
            #expect(total.items == sums.files + (recordInBetween ? 1 : 0))
            #expect(total.allocatedBytes == sums.allocated + (recordInBetween ? 10 : 0))
            let ids = try await index.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT id) = COUNT(*) FROM items")
            }
            #expect(ids == 1)
        }
    }

    @Test("two first scans of nested roots loading at once keep one row per id")
    func nestedRootsLoadingAtOnce() async throws {
        let tree = try TestTree("nested")
        try tree.file("a/x/1.txt", size: 1000)
        try tree.file("a/x/2.txt", size: 2000)
        try tree.file("b/3.txt", size: 3000)
        let index = try makeIndex()
        let outer = try StorageScanner.resolve(tree.root)
        let inner = outer + "/a"
        let options = StorageScanOptions()
        try await index.beginScan(root: outer, scanId: "outer", options: options)
        try await index.beginScan(root: inner, scanId: "inner", options: options)
        #expect(try await Self.indexNames(index) == Self.keptIndexes)
        for (root, scanId) in [(outer, "outer"), (inner, "inner")] {
            let fd = try FileWalker.openRoot(root)
            defer { close(fd) }
            let units = ScanUnit.plan(rootFD: fd, depth: options.effectiveUnitDepth, walker: FileWalker())
            let walk = ScanUnitWalk(rootFD: fd, mapper: ItemMapper(root: root, options: options))
            var pending = units[...]
            while !pending.isEmpty {
                let done = try await index.commitUnits(
                    pending, root: root, scanId: scanId, budget: .everyUnit, walk: walk)
                pending = pending.dropFirst(done.count)
            }
        }
        // outer/a/x/1.txt and inner/x/1.txt are one id: building the unique index keeps the later row.
        #expect(try await index.total().items == 5)
        try await index.buildDeferredIndexes()
        #expect(try await Self.indexNames(index) == Self.allIndexes)
        let total = try await index.total()
        #expect(total == StorageUsage(items: 3, logicalBytes: 6000, allocatedBytes: total.allocatedBytes))
        #expect(try await index.item(id: inner + "/x/1.txt")?.root == inner)
        let groups = try await index.groups(.all, sort: .name, limit: nil)
        #expect(groups.reduce(0) { $0 + $1.usage.items } == 3)
    }

    @Test("a root's usage: the stored total when its items are all the index holds, else summed; both equal the disk")
    func rootUsage() async throws {
        let first = try Self.tree()
        let second = try TestTree("second")
        try second.file("x/1.bin", size: 5_000)
        try second.link("x/1.bin", "x/1-again.bin")
        let index = try makeIndex()
        let roots = [try StorageScanner.resolve(first.root), try StorageScanner.resolve(second.root)]
        /// The usage of `roots`, and the same selection summed row by row (a date filter turns the shortcut off).
        func usage(_ roots: [String]) async throws -> (StorageUsage, summed: StorageUsage) {
            let summed = StorageFilter(roots: roots, modifiedBefore: Date(timeIntervalSinceNow: 86_400))
            return (try await index.usage(StorageFilter(roots: roots)), try await index.usage(summed))
        }
        func expected(_ trees: [TestTree]) -> StorageUsage {
            let sums = trees.map { ExpectedSums(root: $0.root) }
            return StorageUsage(
                items: sums.reduce(0) { $0 + $1.files }, logicalBytes: sums.reduce(0) { $0 + $1.logical },
                allocatedBytes: sums.reduce(0) { $0 + $1.allocated })
        }
        func selectsEverything(_ roots: [String]) async throws -> Bool {
            try await index.pool.read { db in
                try SQLiteStorageIndex.rootsSelectEveryItem(db, StorageFilter(roots: roots))
            }
        }

        _ = try await StorageScanner(index: index).scan(root: first.root, options: try Self.layout())
        let firstAlone = try await selectsEverything([roots[0]])
        #expect(firstAlone)
        var (fast, summed) = try await usage([roots[0]])
        #expect(fast == expected([first]) && summed == fast)
        let total = try await index.total()
        #expect(fast == total)
        let unscanned = try await usage([roots[1]]).0
        #expect(unscanned == StorageUsage())

        _ = try await StorageScanner(index: index).scan(root: second.root)
        let (firstOfTwo, both) = (try await selectsEverything([roots[0]]), try await selectsEverything(roots))
        #expect(!firstOfTwo && both)
        (fast, summed) = try await usage([roots[0]])
        #expect(fast == expected([first]) && summed == fast)
        (fast, summed) = try await usage(roots)
        #expect(fast == expected([first, second]) && summed == fast)

        // An item the app recorded belongs to no root: the roots no longer select everything.
        try await index.record(
            StorageItem(
                id: "app/note", serviceType: "notes", groupId: "n", contentId: "1", contentType: "text/plain",
                sizeInBytes: 10, createdDate: Date(), fileName: "note.txt"))
        let bothWithNote = try await selectsEverything(roots)
        #expect(!bothWithNote)
        (fast, summed) = try await usage(roots)
        #expect(fast == expected([first, second]) && summed == fast)
        let withNote = try await index.total()
        #expect(withNote.items == fast.items + 1)
    }

    static func layout() throws -> StorageScanOptions {
        StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**", service: "chat")])
    }
}
