import Foundation
import GRDB
import SuiteTestSupport
import Synchronization
import Testing

@_spi(Engine) @testable import StorageAccounting

#if canImport(Glibc)
    import Glibc
#endif

/// The first scan's pipeline: a thread walks and maps units ahead (``UnitPrefetcher``) while the index's writer inserts
/// them from bytes (``MappedChunk``). What it stores must be what walking inside the transaction stored, an error on
/// either side must stop both, and an interrupted scan must end up exact.
@Suite("The scan pipeline")
struct ScanPipelineTests {
    static func everyRow(_ index: SQLiteStorageIndex) async throws -> [String] {
        try await index.pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id || '|' || service || '|' || groupId || '|' || contentId || '|' || IFNULL(contentSubId, '∅')
                        || '|' || contentType || '|' || category || '|' || logical || '|' || allocated || '|' || created
                        || '|' || modified || '|' || fileName || '|' || IFNULL(additionalData, '∅') || '|' || root
                        || '|' || hex(path) || '|' || hex(unit) || '|' || dev || '|' || ino || '|' || nlink
                    FROM items ORDER BY id
                    """)
                + String.fetchAll(
                    db,
                    sql: """
                        SELECT service || groupId || category || items || logical || allocated FROM group_totals
                        ORDER BY service, groupId, category
                        """)
                + String.fetchAll(db, sql: "SELECT hex(path) || hex(unit) || mtime FROM directories ORDER BY path")
        }
    }

    static let rules = [
        "chat=chats/{groupId}/{contentId}.{ext}", "docs=docs/**/{contentId}-{contentSubId}.{ext}",
        "media=regex:^media/(?<groupId>[^/]+)/(?<contentId>[^/.]+)\\.(?<ext>.+)$",
    ]

    static func options(sniff: Bool = false) throws -> StorageScanOptions {
        StorageScanOptions(
            layout: try rules.map { rule in
                let parts = rule.split(separator: "=", maxSplits: 1)
                return try LayoutRule(String(parts[1]), service: String(parts[0]))
            }, service: "files", sniffContent: sniff)
    }

    @Test("the pipeline stores exactly what walking each unit inside its transaction stores")
    func sameIndexAsInTransaction() async throws {
        let tree = try ScannerTests.awkwardTree()
        defer { chmod(tree.root + "/locked", 0o755) }
        try tree.file("docs/a/b/report-2.PDF", size: 900)
        try tree.file("media/m1/clip.final.MOV", size: 1500)
        try tree.file(Array("media/m1/".utf8) + [0xC3, 0xA9, 0x5C] + Array(".jpg".utf8), size: 20)
        for file in 0..<3_000 { try tree.file("chats/big/\(file).jpg", size: file % 700) }
        for sniff in [false, true] {
            let options = try Self.options(sniff: sniff)
            let pipelined = try makeIndex()
            let result = try await StorageScanner(index: pipelined).scan(root: tree.root, options: options)
            #expect(result.files > 3_000)

            // The reference: every unit walked inside the transaction that stores it, without a prefetching thread.
            let reference = try makeIndex()
            let root = try StorageScanner.resolve(tree.root)
            try await reference.beginScan(root: root, scanId: "ref", options: options)
            let fd = try FileWalker.openRoot(root)
            defer { close(fd) }
            let units = ScanUnit.plan(rootFD: fd, depth: options.effectiveUnitDepth, walker: FileWalker())
            let walk = ScanUnitWalk(rootFD: fd, mapper: ItemMapper(root: root, options: options))
            var pending = units[...]
            var files = 0
            while !pending.isEmpty {
                let done = try await reference.commitUnits(
                    pending, root: root, scanId: "ref", budget: .everyUnit, walk: walk)
                files += done.reduce(0) { $0 + $1.files }
                pending = pending.dropFirst(done.count)
            }
            _ = try await reference.finishScan(root: root, scanId: "ref", units: units)
            #expect(files == result.files)
            #expect(try await Self.everyRow(pipelined) == Self.everyRow(reference))
        }
    }

    @Test("mapping to bytes gives the item the string mapping gave, on random paths and rules")
    func bytesMatchTheStringModel() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [[UInt8]] = [
            [UInt8(ascii: "a")], [UInt8(ascii: "B")], [UInt8(ascii: ".")], [UInt8(ascii: "\\")], [UInt8(ascii: "-")],
            [UInt8(ascii: " ")], [0xFF], [0xC3, 0xA9], [0xE2, 0x84, 0xAA], Array("jpg".utf8), Array("MkV".utf8),
            Array("tar.gz".utf8),
        ]
        let options = try Self.options()
        let mapper = ItemMapper(root: "/data/app", options: options)
        for _ in 0..<2_000 {
            let depth = Int.random(in: 1...4, using: &generator)
            var path: [UInt8] = []
            for level in 0..<depth {
                if level > 0 { path.append(UInt8(ascii: "/")) }
                if level == 0, Bool.random(using: &generator) {
                    path += Array(["chats", "docs", "media"].randomElement(using: &generator)!.utf8)
                    continue
                }
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    path += alphabet.randomElement(using: &generator)!
                }
            }
            var stat = FileStat(Glibc.stat())
            stat.size = Int64.random(in: 0...1_000_000, using: &generator)
            stat.allocated = stat.size / 4096 * 4096
            stat.modified = Int64.random(in: 0...1_800_000_000_000_000_000, using: &generator)
            stat.linkCount = Int.random(in: 1...3, using: &generator)
            let item = mapper.item(path: path, stat: stat, rootFD: -1)
            #expect(item == Self.modelItem(path: path, stat: stat, root: "/data/app", options: options), "\(path)")
        }
    }

    /// The mapping as it was written with strings before the scan mapped to bytes: the model the bytes must match.
    static func modelItem(path: [UInt8], stat: FileStat, root: String, options: StorageScanOptions) -> StorageItem {
        let storagePath = StoragePath(bytes: path)
        let match = options.layout.lazy.compactMap { rule in rule.match(storagePath).map { (rule, $0) } }.first
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let name = path[nameStart...]
        let dot = name.lastIndex(of: UInt8(ascii: "."))
        let stem = dot.flatMap { $0 > name.startIndex ? name[..<$0] : nil } ?? name
        let ext = match?.1.ext ?? dot.flatMap { $0 > name.startIndex ? StoragePath.escape(name[($0 + 1)...]) : nil }
        let contentType = ext.map { StorageContentType.forExtension($0) } ?? StorageContentType.unknown
        let group: String
        if let captured = match?.1.groupId {
            group = captured
        } else if let slash = path.firstIndex(of: UInt8(ascii: "/")) {
            group = StoragePath.escape(path[..<slash])
        } else {
            group = "."
        }
        let modified = SQLiteStorageIndex.date(nanoseconds: stat.modified)
        return StorageItem(
            id: root + "/" + storagePath.description,
            serviceType: match?.1.service ?? match?.0.service
                ?? options.service,
            groupId: group, contentId: match?.1.contentId ?? StoragePath.escape(stem),
            contentSubId: match?.1.contentSubId, contentType: contentType, sizeInBytes: stat.size,
            allocatedBytes: stat.allocated, createdDate: modified, modifiedDate: modified,
            fileName: StoragePath.escape(name), root: root, path: storagePath, device: stat.device, inode: stat.inode,
            linkCount: stat.linkCount)
    }

    struct WalkFailed: Error, Equatable {}

    /// The units a walk started, in order.
    final class Walked: Sendable {
        let numbers = Mutex<[Int]>([])
    }

    static func units(_ count: Int) -> [ScanUnit] {
        (0..<count).map { ScanUnit(directory: Array("u\($0)".utf8), recursive: true) }
    }

    /// A walk that hands over `chunks` chunks of one file each per unit, failing at the unit `failAt`.
    static func fakeWalk(chunks: Int, failAt: Int? = nil, walked: Walked? = nil)
        -> @Sendable (ScanUnit, () -> Bool, (MappedChunk) throws -> Void) throws -> UnitOutcome
    {
        { unit, shouldStop, deliver in
            let number = Int(String(decoding: unit.directory.dropFirst(), as: UTF8.self)) ?? -1
            walked?.numbers.withLock { $0.append(number) }
            if number == failAt { throw WalkFailed() }
            var outcome = UnitOutcome()
            for _ in 0..<chunks {
                if shouldStop() { throw CancellationError() }
                var chunk = MappedChunk()
                chunk.directories.append((chunk.append(unit.directory), Int64(number)))
                try deliver(chunk)
                outcome.files += 1
            }
            return outcome
        }
    }

    @Test("units come out in order, whole, and a unit the index asks for out of order is walked by the caller")
    func order() async throws {
        let prefetcher = UnitPrefetcher(units: Self.units(6), capacity: 2, walkUnit: Self.fakeWalk(chunks: 3))
        prefetcher.start()
        for number in [0, 1, 3] {
            var seen: [Int64] = []
            let outcome = try prefetcher.take(Self.units(6)[number]) { chunk in
                seen += chunk.directories.map { $0.modified }
            }
            #expect(outcome?.files == 3 && seen == [Int64](repeating: Int64(number), count: 3))
        }
        // Unit 2 was skipped (its chunks dropped): the caller walks it itself.
        #expect(try prefetcher.take(Self.units(6)[2]) { _ in } == nil)
        #expect(try prefetcher.take(Self.units(6)[5]) { _ in }?.files == 3)
        await prefetcher.finished()
    }

    @Test("an error in the walk reaches the writer and ends the thread")
    func walkerError() async throws {
        let prefetcher = UnitPrefetcher(
            units: Self.units(10), capacity: 2, walkUnit: Self.fakeWalk(chunks: 2, failAt: 3))
        prefetcher.start()
        for number in 0..<3 { #expect(try prefetcher.take(Self.units(10)[number]) { _ in }?.files == 2) }
        #expect(throws: WalkFailed.self) { try prefetcher.take(Self.units(10)[3]) { _ in } }
        await prefetcher.finished()
    }

    @Test("an error in the writer stops the walk: the thread ends without walking the rest")
    func writerError() async throws {
        let walked = Walked()
        let prefetcher = UnitPrefetcher(
            units: Self.units(1_000), capacity: 1, walkUnit: Self.fakeWalk(chunks: 2, walked: walked))
        prefetcher.start()
        #expect(throws: WalkFailed.self) { try prefetcher.take(Self.units(1_000)[0]) { _ in throw WalkFailed() } }
        prefetcher.stop()
        await prefetcher.finished()
        // The queue holds one chunk: the thread cannot have got far ahead of the writer.
        #expect(walked.numbers.withLock { $0.count } < 5)
        // And a writer waiting for a chunk is woken by a stop.
        let idle = UnitPrefetcher(
            units: Self.units(2),
            walkUnit: { _, shouldStop, _ in
                while !shouldStop() { sched_yield() }
                throw CancellationError()
            })
        idle.start()
        let waiting = Task.detached { try idle.take(Self.units(2)[0]) { _ in } }
        idle.stop()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await idle.finished()
    }

    @Test("a failing insert fails the scan with its error; fixed, the next scan resumes and the index equals lstat")
    func insertErrorThenResume() async throws {
        let tree = try TestTree("insert-error")
        for group in 0..<20 { for file in 0..<40 { try tree.file("chats/g\(group)/f\(file).jpg", size: 300 + file) } }
        let index = try makeIndex()
        try await index.pool.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse BEFORE INSERT ON items WHEN (SELECT COUNT(*) FROM items) >= 300
                    BEGIN SELECT RAISE(ABORT, 'the disk says no'); END
                    """)
        }
        let options = StorageScanOptions(layout: [try LayoutRule("chats/{groupId}/{contentId}.{ext}")])
        let scanner = StorageScanner(index: index, budget: .everyUnit)
        await #expect {
            try await scanner.scan(root: tree.root, options: options)
        } throws: { error in
            (error as? StorageError)?.code == .storage && "\(error)".contains("the disk says no")
        }
        let partial = try await index.total().items
        #expect(partial > 0 && partial <= 300)
        try await index.pool.write { db in try db.execute(sql: "DROP TRIGGER refuse") }
        let resumed = try await scanner.scan(root: tree.root, options: options)
        #expect(resumed.resumed && resumed.files == 800 - partial)
        let sums = ExpectedSums(root: tree.root)
        let total = try await index.total()
        #expect(
            total.items == sums.files && total.allocatedBytes == sums.allocated && total.logicalBytes == sums.logical)
    }
}
