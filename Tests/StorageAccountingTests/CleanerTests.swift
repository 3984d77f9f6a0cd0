import Foundation
import SuiteCore
import SuiteTestSupport
import Synchronization
import Testing

@testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Cleaning up")
struct CleanerTests {
    static func scanned() async throws -> (TestTree, SQLiteStorageIndex) {
        let tree = try TestTree("clean")
        try tree.file("chats/c1/a.jpg", size: 8192)
        try tree.file("chats/c1/b.mp4", size: 20_000)
        try tree.file("chats/c2/c.jpg", size: 4096)
        try tree.file("chats/c2/d.pdf", size: 1000)
        try tree.link("chats/c2/c.jpg", "chats/c1/c-link.jpg")
        let index = try makeIndex()
        _ = try await StorageScanner(index: index).scan(
            root: tree.root,
            options: StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**", service: "chat")]))
        return (tree, index)
    }

    @Test("a dry run changes nothing; executing deletes files and rows, counting hard-linked blocks once")
    func dryRunThenExecute() async throws {
        let (tree, index) = try await Self.scanned()
        let bus = EventBus()
        let cleaned = Mutex<[String]>([])
        let token = bus.subscribe(named: "storage.cleaned", as: StorageCleanedEvent.Payload.self) { payload, _ in
            cleaned.withLock { $0.append("\(payload.items)") }
        }
        defer { token.cancel() }
        let cleaner = StorageCleaner(index: index, bus: bus)
        let images = StorageFilter(groups: ["c1"], categories: [.image])
        let plan = try await cleaner.plan(images)
        #expect(plan.freed.items == 2)
        // c-link.jpg shares its inode with c2/c.jpg, which stays: only a.jpg's blocks come back.
        let a = try #require(try await index.item(id: tree.root + "/chats/c1/a.jpg"))
        #expect(plan.freed.allocatedBytes == a.allocatedBytes && plan.freed.itemsKeptByOtherLinks == 1)
        #expect(tree.exists("chats/c1/a.jpg") && tree.exists("chats/c1/c-link.jpg"))
        #expect(try await index.total().items == 5)

        let result = try await cleaner.execute(images)
        #expect(result.deleted == 2 && result.refused.isEmpty)
        #expect(result.freedAllocatedBytes == a.allocatedBytes)
        #expect(!tree.exists("chats/c1/a.jpg") && !tree.exists("chats/c1/c-link.jpg") && tree.exists("chats/c2/c.jpg"))
        #expect(try await index.total().items == 3)
        #expect(cleaned.withLock { $0 } == ["2"])

        // Older than a date: everything is newer than an hour ago, so nothing goes.
        let old = try await cleaner.execute(StorageFilter(modifiedBefore: Date(timeIntervalSinceNow: -3600)))
        #expect(old.deleted == 0)
        await #expect(throws: StorageError.self) { try await cleaner.execute(.all) }
    }

    @Test("never deletes outside the root: a symlinked directory, '..' and absolute paths are refused")
    func refusesUnsafePaths() async throws {
        let (tree, index) = try await Self.scanned()
        let outside = try TestTree("outside")
        try outside.file("secret.txt", size: 10)
        // A directory of the root replaced by a link to elsewhere after the scan, and forged rows.
        try tree.symlink(target: outside.root, at: "chats/evil")
        let now = Date()
        func forged(_ id: String, _ path: [UInt8]) -> StorageItem {
            StorageItem(
                id: id, serviceType: "chat", groupId: "evil", contentId: id, contentType: "text/plain",
                sizeInBytes: 10, createdDate: now, fileName: "secret.txt", root: tree.root,
                path: StoragePath(bytes: path))
        }
        try await index.record([
            forged("through-link", Array("chats/evil/secret.txt".utf8)),
            forged("dot-dot", Array("chats/../../\(outside.root.split(separator: "/").last ?? "")/secret.txt".utf8)),
            forged("absolute", Array("/\(outside.root)/secret.txt".utf8)),
            forged("link-itself", Array("chats/evil".utf8)),
        ])
        let result = try await StorageCleaner(index: index).execute(StorageFilter(groups: ["evil"]))
        #expect(result.deleted == 0)
        #expect(Set(result.refused.map(\.id)) == ["through-link", "dot-dot", "absolute", "link-itself"])
        #expect(outside.exists("secret.txt") && tree.exists("chats/evil"))
        #expect(try await index.total().items == 9)  // refused rows stay

        // A root that is not managed is refused as a whole.
        let other = StorageCleaner(index: index, managedRoots: [outside.root])
        let refused = try await other.execute(StorageFilter(groups: ["c2"]))
        #expect(refused.deleted == 0 && refused.refused.count == 2)
        #expect(tree.exists("chats/c2/d.pdf"))
    }
}
