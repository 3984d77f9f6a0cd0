import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Scanning a root")
struct ScannerTests {
    /// A tree with every awkward case the issue names.
    static func awkwardTree() throws -> TestTree {
        let tree = try TestTree("awkward")
        try tree.file("chats/c1/photo.jpg", size: 5000, prefix: [0xFF, 0xD8, 0xFF])
        try tree.file("chats/c1/clip.mp4", size: 70_000)
        try tree.file("chats/c2/voice.m4a", size: 1234)
        try tree.file("chats/c2/empty.pdf", size: 0)
        try tree.link("chats/c1/clip.mp4", "chats/c2/clip-again.mp4")  // a hard link across groups
        try tree.link("chats/c1/photo.jpg", "chats/c1/photo-copy.jpg")  // and within one
        try tree.sparse("chats/c3/sparse.bin", size: 10 << 20)
        try tree.file("chats/c3/name with spaces.txt", size: 42)
        try tree.file(Array("chats/c3/bad-".utf8) + [0xFF, 0xFE] + Array(".dat".utf8), size: 77)
        let deep = (0..<50).map { "d\($0)" }.joined(separator: "/")
        try tree.file("deep/\(deep)/leaf.txt", size: 10)
        try tree.file("locked/inside.txt", size: 300)
        chmod(tree.root + "/locked", 0o000)
        try tree.symlink(target: "../loop", at: "loop/again")  // loop → loop
        try tree.symlink(target: "/etc", at: "outside")  // pointing outside the root
        try tree.file("top.txt", size: 11)
        return tree
    }

    @Test("totals equal the sums of st_size and st_blocks × 512 over unique inodes, and du's minus directories")
    func totalsMatchLstatAndDu() async throws {
        let tree = try Self.awkwardTree()
        defer { chmod(tree.root + "/locked", 0o755) }
        let index = try makeIndex()
        let scanner = StorageScanner(index: index)
        let result = try await scanner.scan(
            root: tree.root, options: StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/{contentId}.{ext}")]))
        let expected = ExpectedSums(root: tree.root)
        let total = try await index.total()
        #expect(total.items == expected.files)
        #expect(total.logicalBytes == expected.logical)
        #expect(total.allocatedBytes == expected.allocated)
        #expect(result.otherEntries == 2)  // the two symbolic links, not followed

        // Running as root, chmod 000 does not stop reading: then the file is indexed and nothing is reported.
        let lockedReadable = access(tree.root + "/locked", R_OK) == 0
        let lockedWarnings = result.warnings.filter { $0.path.description == "locked" }
        if lockedReadable {
            #expect(lockedWarnings.isEmpty)
            #expect(try await index.item(id: tree.root + "/locked/inside.txt") != nil)
        } else {
            #expect(lockedWarnings.count == 1, "\(result.warnings)")
        }
        #expect(
            try await index.item(id: tree.root + "/chats/c3/bad-\\xff\\xfe.dat")?.path?.bytes.suffix(6) == [0xFF, 0xFE]
                + Array(".dat".utf8))

        // du counts directories and links too; without them it must say what the index says.
        let allocatedByDu = Int64(try run("/usr/bin/du", ["-s", "-B1", tree.root]).split(separator: "\t")[0]) ?? -1
        let logicalByDu = Int64(try run("/usr/bin/du", ["-s", "-b", tree.root]).split(separator: "\t")[0]) ?? -1
        #expect(allocatedByDu - expected.otherAllocated == total.allocatedBytes)
        #expect(logicalByDu - expected.otherLogical == total.logicalBytes)
    }

    @Test("layout rules give service, group, content and type; queries by category, group, service and top")
    func queriesAfterAScan() async throws {
        let tree = try Self.awkwardTree()
        defer { chmod(tree.root + "/locked", 0o755) }
        let index = try makeIndex()
        _ = try await StorageScanner(index: index).scan(
            root: tree.root,
            options: StorageScanOptions(
                layout: [try LayoutRule("chats/{groupId}/{contentId}.{ext}", service: "chat")], service: "files",
                sniffContent: true))
        let photo = try #require(try await index.item(id: tree.root + "/chats/c1/photo.jpg"))
        #expect(photo.serviceType == "chat" && photo.groupId == "c1" && photo.contentId == "photo")
        #expect(photo.contentType == "image/jpeg" && photo.category == .image)
        let top = try #require(try await index.item(id: tree.root + "/top.txt"))
        #expect(top.serviceType == "files" && top.groupId == ".")

        let groups = try await index.groups(StorageFilter(services: ["chat"]), sort: .size, limit: nil)
        #expect(groups.map(\.groupId) == ["c1", "c2", "c3"])
        // c1 holds photo.jpg twice (hard link): counted once; clip.mp4 is also in c2.
        let c1 = try #require(groups.first)
        let photoBytes = photo.allocatedBytes
        let clip = try #require(try await index.item(id: tree.root + "/chats/c1/clip.mp4"))
        #expect(c1.usage.items == 3)
        #expect(c1.usage.allocatedBytes == photoBytes + clip.allocatedBytes)
        let byName = try await index.groups(.all, sort: .name, limit: 2)
        #expect(byName.map(\.id) == ["chat/c1", "chat/c2"])

        let categories = try await index.categories(StorageFilter(services: ["chat"]))
        #expect(Set(categories.map(\.category)) == [.image, .video, .audio, .file, .other])
        let services = try await index.services(.all)
        #expect(Set(services.map(\.service)) == ["chat", "files"])
        let largest = try await index.largest(1)
        #expect(largest.first?.id == clip.id || largest.first?.allocatedBytes == clip.allocatedBytes)

        // Freed if deleted: the clip's blocks come back only when both its links go.
        let one = try await index.freedIfDeleted(StorageFilter(ids: [clip.id]))
        #expect(one.allocatedBytes == 0 && one.itemsKeptByOtherLinks == 1)
        let both = try await index.freedIfDeleted(
            StorageFilter(ids: [clip.id, tree.root + "/chats/c2/clip-again.mp4"]))
        #expect(both.allocatedBytes == clip.allocatedBytes && both.items == 2)

        let detail = try #require(try await index.group("c3"))
        #expect(detail.usage.items == 3 && detail.services == ["chat"])
        let report = try await index.report(topGroups: 2)
        #expect(report.groups.count == 2)
        #expect(report.allocatedBytes == (try await index.total()).allocatedBytes)
        let json = try JSONEncoder().encode(report)
        let keys = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys
        #expect(Set(["allocatedBytes", "logicalBytes", "items", "categories", "groups"]).isSubset(of: Set(keys)))
    }

    @Test("each unit is committed before the next: a query from the progress callback sees finished groups")
    func committedPerUnit() async throws {
        let tree = try TestTree("units")
        for group in 0..<5 { for file in 0..<3 { try tree.file("chats/g\(group)/f\(file).jpg", size: 1000) } }
        let index = try makeIndex()
        let seen = Mutex<[(done: Int, groups: Int, files: Int)]>([])
        _ = try await StorageScanner(index: index, budget: .everyUnit).scan(
            root: tree.root, options: StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**")])
        ) { progress in
            let groups = (try? await index.groups(.all, sort: .name, limit: nil).count) ?? -1
            seen.withLock { $0.append((progress.unitsDone, groups, progress.files)) }
        }
        let steps = seen.withLock { $0 }
        // Units: ". (files)", "chats (files)", then the 5 groups.
        #expect(steps.first?.done == 0)
        #expect(steps.last?.done == 7 && steps.last?.groups == 5 && steps.last?.files == 15)
        for step in steps where step.done >= 2 { #expect(step.groups == step.done - 2) }
    }

    @Test("a cancelled scan resumes where it stopped without walking finished units again")
    func interruptedScanResumes() async throws {
        let tree = try TestTree("resume")
        for group in 0..<12 { for file in 0..<20 { try tree.file("g\(group)/f\(file).txt", size: 500) } }
        let index = try makeIndex()
        let scanner = StorageScanner(index: index, budget: .everyUnit)
        let task = Task {
            try await scanner.scan(root: tree.root) { progress in
                if progress.unitsDone >= 5 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        await #expect(throws: StorageError.self) { try await task.value }
        let partial = try await index.total()
        #expect(partial.items > 0 && partial.items < 240)
        let second = try await scanner.scan(root: tree.root)
        #expect(second.resumed)
        #expect(second.unitsResumed >= 5)
        #expect(second.unitsWalked == second.unitsTotal - second.unitsResumed)
        #expect(second.files == 240 - partial.items)
        #expect(try await index.total().items == 240)
        // A scan after a finished one starts over and replaces, without duplicates.
        tree.remove("g0/f0.txt")
        let third = try await scanner.scan(root: tree.root)
        #expect(!third.resumed && third.unitsWalked == third.unitsTotal)
        #expect(try await index.total().items == 239)
    }

    @Test("a vanished unit's items go at the next scan")
    func vanishedUnits() async throws {
        let tree = try TestTree("vanish")
        try tree.file("a/1.txt")
        try tree.file("b/2.txt")
        let index = try makeIndex()
        let scanner = StorageScanner(index: index)
        _ = try await scanner.scan(root: tree.root)
        tree.remove("b/2.txt")
        rmdir(tree.root + "/b")
        let result = try await scanner.scan(root: tree.root)
        #expect(result.removedItems == 1)
        #expect(try await index.total().items == 1)
    }
}
