import Foundation
import GRDB
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import StorageAccounting

/// The answers the index must give, from a plain list of items: in each bucket, each inode of a file with several
/// links counts once, at the largest size any of its rows carries.
struct LinkModel {
    var items: [String: StorageItem] = [:]

    func usage(_ selected: (StorageItem) -> Bool) -> StorageUsage {
        var result = StorageUsage()
        var inodes: [[UInt64]: (logical: Int64, allocated: Int64)] = [:]
        for item in items.values where selected(item) {
            result.items += 1
            if item.linkCount > 1, let device = item.device, let inode = item.inode {
                let old = inodes[[device, inode]] ?? (0, 0)
                inodes[[device, inode]] = (max(old.logical, item.sizeInBytes), max(old.allocated, item.allocatedBytes))
            } else {
                result.logicalBytes += item.sizeInBytes
                result.allocatedBytes += item.allocatedBytes
            }
        }
        for value in inodes.values {
            result.logicalBytes += value.logical
            result.allocatedBytes += value.allocated
        }
        return result
    }
}

/// Checks every answer of `index` on the whole index (stored corrections) against `model`, and the stored
/// corrections against those computed afresh from the items.
func expectAnswers(
    _ index: SQLiteStorageIndex, match model: LinkModel, sourceLocation: SourceLocation = #_sourceLocation
)
    async throws
{
    #expect(try await index.total() == model.usage { _ in true }, sourceLocation: sourceLocation)
    let report = try await index.report(topGroups: 1_000)
    #expect(report.allocatedBytes == model.usage { _ in true }.allocatedBytes, sourceLocation: sourceLocation)
    for group in try await index.groups(.all, sort: .name, limit: nil) {
        let expected = model.usage { $0.serviceType == group.service && $0.groupId == group.groupId }
        #expect(group.usage == expected, "group \(group.id)", sourceLocation: sourceLocation)
    }
    let groupCount = Set(model.items.values.map { [$0.serviceType, $0.groupId] }).count
    #expect(try await index.groups(.all, sort: .name, limit: nil).count == groupCount, sourceLocation: sourceLocation)
    for category in try await index.categories(.all) {
        #expect(
            category.usage == model.usage { $0.category == category.category }, "category \(category.category)",
            sourceLocation: sourceLocation)
    }
    // Filtered group lists: by service (stored group corrections) and by category (computed from the linked rows).
    for service in Set(model.items.values.map(\.serviceType)) {
        for group in try await index.groups(StorageFilter(services: [service]), sort: .size, limit: nil) {
            let expected = model.usage { $0.serviceType == service && $0.groupId == group.groupId }
            #expect(group.usage == expected, "group \(group.id) of \(service)", sourceLocation: sourceLocation)
        }
    }
    for category in Set(model.items.values.map(\.category)) {
        for group in try await index.groups(StorageFilter(categories: [category]), sort: .size, limit: nil) {
            let expected = model.usage {
                $0.category == category && $0.serviceType == group.service && $0.groupId == group.groupId
            }
            #expect(group.usage == expected, "group \(group.id), \(category)", sourceLocation: sourceLocation)
        }
    }
    for service in try await index.services(.all) {
        #expect(
            service.usage == model.usage { $0.serviceType == service.service }, "service \(service.service)",
            sourceLocation: sourceLocation)
    }
    let (stored, fresh) = try await index.pool.read { db in
        (
            try LinkCorrections.stored(db).values,
            LinkCorrections.of(rows: try SQLiteStorageIndex.linkedRows(db, .all)).values
        )
    }
    #expect(
        stored == fresh.filter { $0.value != StorageUsage() }, "stored link corrections drifted",
        sourceLocation: sourceLocation)
}

@Suite("Hard-link corrections kept at write time")
struct LinkCorrectionTests {
    static let date = Date(timeIntervalSince1970: 1_700_000_000)

    static func link(
        _ id: String, group: String, inode: UInt64, links: Int = 2, bytes: Int64 = 4096, service: String = "chat",
        type: String = "image/jpeg"
    ) -> StorageItem {
        StorageItem(
            id: id, serviceType: service, groupId: group, contentId: id, contentType: type, sizeInBytes: bytes,
            allocatedBytes: bytes, createdDate: date, fileName: id + ".bin", device: 7, inode: inode, linkCount: links)
    }

    @Test("removing one of two links, then the other, and linking into another group keep every answer exact")
    func removeOneThenTheOther() async throws {
        let index = try makeIndex()
        var model = LinkModel()
        func record(_ items: [StorageItem]) async throws {
            try await index.record(items)
            for item in items { model.items[item.id] = item }
        }
        func remove(_ id: String) async throws {
            #expect(try await index.remove(id: id))
            model.items[id] = nil
        }
        try await record([Self.link("a1", group: "g1", inode: 1), Self.link("a2", group: "g1", inode: 1)])
        #expect(try await index.total() == StorageUsage(items: 2, logicalBytes: 4096, allocatedBytes: 4096))
        try await expectAnswers(index, match: model)

        // A third link in another group: the total still counts the inode once, g2 counts it on its own.
        try await record([Self.link("a3", group: "g2", inode: 1, links: 3)])
        #expect(try await index.total() == StorageUsage(items: 3, logicalBytes: 4096, allocatedBytes: 4096))
        let g2 = try #require(try await index.groups(.all, sort: .name, limit: nil).last)
        #expect(g2.groupId == "g2" && g2.usage.allocatedBytes == 4096)
        try await expectAnswers(index, match: model)

        try await remove("a1")
        try await expectAnswers(index, match: model)
        try await remove("a2")
        #expect(try await index.total() == StorageUsage(items: 1, logicalBytes: 4096, allocatedBytes: 4096))
        try await expectAnswers(index, match: model)
        try await remove("a3")
        #expect(try await index.total() == StorageUsage())
        let leftover = try await index.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM link_corrections")
        }
        #expect(leftover == 0)
    }

    @Test("replacing a link with another size, group or category moves its correction")
    func replaceMovesCorrections() async throws {
        let index = try makeIndex()
        var model = LinkModel()
        let items = [
            Self.link("b1", group: "g1", inode: 5), Self.link("b2", group: "g1", inode: 5),
            Self.link("c1", group: "g1", inode: 6, bytes: 8192, type: "video/mp4"),
            Self.link("c2", group: "g3", inode: 6, bytes: 8192, service: "files", type: "video/mp4"),
        ]
        try await index.record(items)
        for item in items { model.items[item.id] = item }
        try await expectAnswers(index, match: model)
        // b2 moves to g2 and grows (a stale size on one link); c2 becomes a document of g1.
        let moved = [
            Self.link("b2", group: "g2", inode: 5, bytes: 12_288),
            Self.link("c2", group: "g1", inode: 6, bytes: 8192, type: "application/pdf"),
        ]
        try await index.record(moved)
        for item in moved { model.items[item.id] = item }
        try await expectAnswers(index, match: model)
        // Recording the same rows again changes nothing.
        try await index.record(moved)
        try await expectAnswers(index, match: model)
    }

    @Test("random records and removes against a plain model never let the corrections drift")
    func randomAgainstModel() async throws {
        let index = try makeIndex()
        var model = LinkModel()
        var random = SplitMix64(seed: 0x11_4C)
        let types = ["image/jpeg", "video/mp4", "audio/mpeg", "application/pdf"]
        for _ in 0..<40 {
            var batch: [StorageItem] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let id = "i\(Int.random(in: 0..<30, using: &random))"
                let links = Int.random(in: 1...3, using: &random)
                batch.append(
                    Self.link(
                        id, group: "g\(Int.random(in: 0..<3, using: &random))",
                        inode: UInt64.random(in: 0..<6, using: &random), links: links,
                        bytes: 512 * Int64.random(in: 1...4, using: &random),
                        service: ["chat", "files"][Int.random(in: 0..<2, using: &random)],
                        type: types[Int.random(in: 0..<types.count, using: &random)]))
            }
            // Ids may repeat within a batch: the last one wins, as in the model.
            try await index.record(batch)
            for item in batch { model.items[item.id] = item }
            let gone = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                "i\(Int.random(in: 0..<30, using: &random))"
            }
            _ = try await index.remove(ids: gone)
            for id in gone { model.items[id] = nil }
            try await expectAnswers(index, match: model)
        }
    }

    @Test("an index made before the corrections existed gets them at its first open")
    func migrationFillsCorrections() async throws {
        let path = try TestSupport.temporaryFile("storage-v2.sqlite")
        let items = [
            Self.link("d1", group: "g1", inode: 9), Self.link("d2", group: "g1", inode: 9),
            Self.link("d3", group: "g2", inode: 9, links: 3), Self.link("e1", group: "g2", inode: 10, links: 1),
        ]
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteStorageIndex.migrator.migrate(pool, upTo: "v2 covering items_links")
            try await pool.write { db in
                var delta = GroupTotalsDelta()
                for item in items { try SQLiteStorageIndex.insert(item, unit: nil, into: db, delta: &delta) }
                delta.links = LinkChanges()  // v2 had no link_corrections table
                try delta.apply(db)
            }
            try pool.close()
        }
        let index = try SQLiteStorageIndex(path: path)
        var model = LinkModel()
        for item in items { model.items[item.id] = item }
        try await expectAnswers(index, match: model)
        #expect(try await index.total().allocatedBytes == 2 * 4096)
    }

    @Test("scans, a reconcile fix, a cleanup and a vanished unit keep the totals equal to the disk's unique inodes")
    func scannedTreeStaysExact() async throws {
        let tree = try TestTree("links")
        try tree.file("chats/c1/a.jpg", size: 5000)
        try tree.file("chats/c2/b.jpg", size: 9000)
        try tree.file("chats/c3/c.mp4", size: 20_000)
        try tree.link("chats/c1/a.jpg", "chats/c1/a-again.jpg")
        try tree.link("chats/c1/a.jpg", "chats/c2/a-there.jpg")
        try tree.link("chats/c2/b.jpg", "chats/c3/b-copy.jpg")
        let index = try makeIndex()
        let scanner = StorageScanner(index: index)
        let options = StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/**", service: "chat")])
        func expectDisk(_ step: String) async throws {
            let sums = ExpectedSums(root: tree.root)
            let total = try await index.total()
            #expect(total.items == sums.files && total.allocatedBytes == sums.allocated, "\(step)")
            #expect(total.logicalBytes == sums.logical, "\(step)")
            let (stored, fresh) = try await index.pool.read { db in
                (
                    try LinkCorrections.stored(db).values,
                    LinkCorrections.of(rows: try SQLiteStorageIndex.linkedRows(db, .all)).values
                )
            }
            #expect(stored == fresh.filter { $0.value != StorageUsage() }, "\(step): corrections drifted")
        }
        _ = try await scanner.scan(root: tree.root, options: options)
        try await expectDisk("first scan")

        tree.remove("chats/c1/a-again.jpg")
        let reconciled = try await Reconciler(scanner: scanner).reconcile(root: tree.root, mode: .full, fix: true)
        #expect(reconciled.fixed)
        try await expectDisk("reconcile fix")

        let cleaned = try await StorageCleaner(index: index).execute(
            StorageFilter(groups: ["c3"], categories: [.image]))
        #expect(cleaned.deleted == 1)
        try await expectDisk("cleanup")

        _ = try run("/bin/rm", ["-r", tree.root + "/chats/c2"])
        let rescan = try await scanner.scan(root: tree.root, options: options)
        #expect(rescan.removedItems == 2)
        try await expectDisk("vanished unit")
        #expect(try await index.groups(.all, sort: .name, limit: nil).map(\.groupId) == ["c1", "c3"])
    }
}
