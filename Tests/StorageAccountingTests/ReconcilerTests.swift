import Foundation
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Reconciling the index with the disk")
struct ReconcilerTests {
    /// A scanned tree whose directories carry an old time, so that any change shows in their modification time.
    static func scanned() async throws -> (TestTree, StorageScanner) {
        let tree = try TestTree("reconcile")
        try tree.file("chats/c1/a.jpg", size: 5000)
        try tree.file("chats/c1/b.jpg", size: 5000)
        try tree.file("chats/c2/c.jpg", size: 5000)
        try tree.file("chats/c3/log.txt", size: 100)
        _ = try run("/usr/bin/find", [tree.root, "-type", "d", "-exec", "touch", "-d", "2001-01-01", "{}", "+"])
        let scanner = StorageScanner(index: try makeIndex())
        _ = try await scanner.scan(
            root: tree.root, options: StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**")]))
        return (tree, scanner)
    }

    /// Deletes one file, adds one, adds a whole group, and appends to a file (which no directory time shows).
    static func disturb(_ tree: TestTree) throws {
        tree.remove("chats/c1/b.jpg")
        try tree.file("chats/c2/new.jpg", size: 3000)
        try tree.file("chats/c4/fresh.mp4", size: 9000)
        let fd = open(tree.root + "/chats/c3/log.txt", O_WRONLY | O_APPEND)
        defer { close(fd) }
        let extra = [UInt8](repeating: 0x62, count: 20_000)
        _ = extra.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    @Test("cheap mode sees changed directories, says it cannot see appends, and fixes what it sees")
    func cheapMode() async throws {
        let (tree, scanner) = try await Self.scanned()
        try Self.disturb(tree)
        let reconciler = Reconciler(scanner: scanner)
        let report = try await reconciler.reconcile(root: tree.root, mode: .cheap, fix: false)
        #expect(Set(report.changedDirectories.map(\.description)) == ["chats", "chats/c1", "chats/c2"])
        #expect(!report.limitations.isEmpty && report.limitations[0].contains("append"))
        #expect(report.unitsAffected == 4)  // c1, c2, the new c4, and the shallow unit of chats
        let fixed = try await reconciler.reconcile(root: tree.root, mode: .cheap, fix: true)
        #expect(fixed.fixed)
        let index = scanner.index
        #expect(try await index.item(id: tree.root + "/chats/c1/b.jpg") == nil)
        #expect(try await index.item(id: tree.root + "/chats/c4/fresh.mp4") != nil)
        // The append is still invisible to the index: only the full mode finds it.
        let log = try #require(try await index.item(id: tree.root + "/chats/c3/log.txt"))
        #expect(log.sizeInBytes == 100)
    }

    @Test("full mode finds missing, unindexed and drifted files; fixing makes the totals match the disk")
    func fullMode() async throws {
        let (tree, scanner) = try await Self.scanned()
        try Self.disturb(tree)
        let reconciler = Reconciler(scanner: scanner)
        let report = try await reconciler.reconcile(root: tree.root, mode: .full, fix: true)
        #expect(report.missingFiles.map(\.description) == ["chats/c1/b.jpg"])
        #expect(Set(report.unindexedFiles.map(\.description)) == ["chats/c2/new.jpg", "chats/c4/fresh.mp4"])
        #expect(report.drifted.map(\.path.description) == ["chats/c3/log.txt"])
        #expect(report.drifted.first?.diskLogicalBytes == 20_100)
        #expect(report.fixed)
        let expected = ExpectedSums(root: tree.root)
        let total = try await scanner.index.total()
        #expect(total.items == expected.files && total.allocatedBytes == expected.allocated)
        #expect(total.logicalBytes == expected.logical)
        let again = try await reconciler.reconcile(root: tree.root, mode: .full, fix: false)
        #expect(again.isConsistent)
    }

    @Test("a root never scanned is refused with a hint")
    func unscannedRoot() async throws {
        let tree = try TestTree("never")
        let reconciler = Reconciler(scanner: StorageScanner(index: try makeIndex()))
        await #expect(throws: StorageError.self) {
            try await reconciler.reconcile(root: tree.root, mode: .cheap, fix: false)
        }
    }
}
