import Foundation
import GRDB
import Logging
import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Cache

@Suite("SQLite cache store")
struct SQLiteCacheStoreTests {
    let directory: URL
    var path: String { directory.path + "/cache.sqlite" }
    var valuesDirectory: String { path + ".values" }

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory("sqlite-cache")
    }

    func open(_ configuration: SQLiteCacheStore.Configuration = .init(inlineLimit: 1_000)) throws -> SQLiteCacheStore {
        try SQLiteCacheStore(path: path, configuration: configuration, logger: .init(label: "test"), orphanGrace: .zero)
    }

    func valueFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: valuesDirectory).sorted()
    }

    static func entry(_ key: String, size: Int, tags: [String] = []) -> CacheEntry {
        CacheEntry(
            key: key, value: (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + key.utf8.count) },
            metadata: CacheMetadata(storedAt: 1, tags: tags, status: 200, headers: [CacheHeader("ETag", "\"\(key)\"")]))
    }

    @Test func largeValuesAreFilesRemovedWithTheirEntries() async throws {
        let store = try open()
        try await store.store(Self.entry("small", size: 1_000))
        #expect(try valueFiles().isEmpty, "up to the inline limit, the value is in the row")
        let large = Self.entry("large", size: 50_000, tags: ["t"])
        try await store.store(large)
        let files = try valueFiles()
        #expect(files.count == 1)
        #expect(try await store.entry(forKey: "large", now: 0) == large)
        #expect(FileManager.default.contents(atPath: valuesDirectory + "/" + files[0]).map(Array.init) == large.value)

        // Replaced by a large value: a new file, the old one gone; by a small one: no file.
        try await store.store(Self.entry("large", size: 60_000, tags: ["t"]))
        #expect(try valueFiles().count == 1 && valueFiles() != files)
        try await store.store(Self.entry("large", size: 10))
        #expect(try valueFiles().isEmpty)

        // Each removal takes the files with the rows.
        try await store.store(Self.entry("a", size: 5_000, tags: ["t"]))
        try await store.store(Self.entry("b", size: 5_000))
        try await store.store(Self.entry("p/c", size: 5_000))
        try await store.store(Self.entry("e", size: 5_000).with(expiresAt: 10))
        #expect(try valueFiles().count == 4)
        #expect(try await store.removeEntries(taggedWith: "t") == 1)
        #expect(try await store.removeEntry(forKey: "b"))
        #expect(try await store.removeEntries(withPrefix: "p/") == 1)
        #expect(try await store.removeExpired(now: 10) == 1)
        #expect(try valueFiles().isEmpty)
        try await store.store(Self.entry("f", size: 5_000))
        #expect(try await store.removeAll() == 3)
        #expect(try valueFiles().isEmpty)
        try await store.close()
    }

    @Test func evictedValueFilesAreDeleted() async throws {
        let store = try open(.init(byteLimit: 30_000, inlineLimit: 1_000))
        for i in 0..<10 { try await store.store(Self.entry("v\(i)", size: 9_000)) }
        let statistics = try await store.statistics()
        #expect(statistics.entries == 3)
        #expect(try valueFiles().count == 3)
        try await store.close()
    }

    @Test func anExpiredEntryReadIsDroppedByTheNextWrite() async throws {
        let store = try open()
        try await store.store(Self.entry("old", size: 5_000).with(expiresAt: 100))
        #expect(try await store.entry(forKey: "old", now: 100) == nil)
        #expect(try await store.statistics().entries == 1)
        try await store.store(Self.entry("new", size: 10))
        #expect(try await store.statistics().entries == 1)
        #expect(try valueFiles().isEmpty)
        try await store.close()
    }

    @Test func orphanValueFilesAreRemovedOnOpen() async throws {
        var store = try open()
        try await store.store(Self.entry("kept", size: 20_000))
        try await store.close()
        let kept = try valueFiles()
        for name in ["0b1e4c3a-orphan", "dead.tmp"] {
            #expect(FileManager.default.createFile(atPath: valuesDirectory + "/" + name, contents: Data([1, 2, 3])))
        }
        // A young orphan may be another process's uncommitted value: the public initialiser leaves it for a minute.
        store = try SQLiteCacheStore(path: path, configuration: .init(inlineLimit: 1_000))
        try await store.close()
        #expect(try valueFiles().count == 3)

        store = try open()
        #expect(try valueFiles() == kept)
        #expect(try await store.entry(forKey: "kept", now: 0) == Self.entry("kept", size: 20_000))
        try await store.close()
    }

    @Test func everythingSurvivesAReopen() async throws {
        var store = try open(.init(countLimit: 3, inlineLimit: 1_000))
        let entries = [
            Self.entry("a", size: 10, tags: ["x"]), Self.entry("b", size: 30_000, tags: ["x", "y"]),
            Self.entry("c", size: 0),
        ]
        for entry in entries { try await store.store(entry) }
        #expect(try await store.entry(forKey: "a", now: 0) != nil)  // a is now more recent than b
        let statistics = try await store.statistics()
        try await store.close()
        await #expect(throws: CacheError.self) { try await store.entry(forKey: "a", now: 0) }

        store = try open(.init(countLimit: 3, inlineLimit: 1_000))
        #expect(try await store.statistics() == statistics)
        #expect(try await store.summaries(after: nil, limit: 10).map(\.key) == ["a", "b", "c"])
        // The recency order survived: b is the least recently used.
        #expect(try await store.store(Self.entry("d", size: 1)).evicted.map(\.key) == ["b"])
        #expect(try valueFiles().isEmpty)
        for entry in [entries[0], entries[2]] { #expect(try await store.entry(forKey: entry.key, now: 0) == entry) }
        try await store.close()

        // The reads of the last session were written at its close: d is now the least recently used.
        store = try open(.init(countLimit: 3, inlineLimit: 1_000))
        #expect(try await store.store(Self.entry("e", size: 1)).evicted.map(\.key) == ["d"])
        #expect(try await store.removeEntries(taggedWith: "x") == 1)
        try await store.close()
    }

    /// What `store` acknowledged is in the files without a `close()`: a store left open (as by a killed process) and a
    /// second one opened on the same path see the same entries, value files included.
    @Test func acknowledgedStoresNeedNoClose() async throws {
        let first = try open()
        let entries = [Self.entry("small", size: 10), Self.entry("large", size: 40_000, tags: ["t"])]
        for entry in entries { try await first.store(entry) }
        let second = try open()
        for entry in entries { #expect(try await second.entry(forKey: entry.key, now: 0) == entry) }
        #expect(try await second.statistics() == first.statistics())
        try await second.close()
        try await first.close()
    }

    /// A file of schema v1 (the access tick in `entries`) opens as an empty v3 cache; its value files go as orphans.
    @Test func aVersion1FileOpensEmpty() async throws {
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1');
                    CREATE TABLE entries (key TEXT PRIMARY KEY NOT NULL, value BLOB, file TEXT, size INTEGER NOT NULL,
                        cost INTEGER NOT NULL, expiresAt INTEGER, access INTEGER NOT NULL, metadata BLOB NOT NULL);
                    CREATE TABLE tags (tag TEXT NOT NULL, key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
                        PRIMARY KEY (tag, key)) WITHOUT ROWID;
                    CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL,
                        bytes INTEGER NOT NULL);
                    INSERT INTO entries VALUES ('old', NULL, 'f1', 3, 50, NULL, 1, x'01000000');
                    INSERT INTO totals VALUES (0, 1, 50);
                    """)
        }
        try queue.close()
        try FileManager.default.createDirectory(atPath: valuesDirectory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: valuesDirectory + "/f1", contents: Data([1, 2, 3])))
        let store = try open()
        #expect(try await store.statistics().entries == 0)
        #expect(try valueFiles().isEmpty)
        try await store.store(Self.entry("new", size: 5_000))
        #expect(try await store.entry(forKey: "new", now: 0) == Self.entry("new", size: 5_000))
        try await store.close()
    }

    /// A file of schema v2 (totals kept by triggers, AUTOINCREMENT ids) opens as an empty v3 cache.
    @Test func aVersion2FileOpensEmpty() async throws {
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
                    CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL UNIQUE, value BLOB,
                        file TEXT, size INTEGER NOT NULL, cost INTEGER NOT NULL, expiresAt INTEGER,
                        metadata BLOB NOT NULL);
                    CREATE TABLE recency (id INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
                        access INTEGER NOT NULL);
                    CREATE TABLE tags (tag TEXT NOT NULL, key TEXT NOT NULL REFERENCES entries(key) ON DELETE CASCADE,
                        PRIMARY KEY (tag, key)) WITHOUT ROWID;
                    CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL,
                        bytes INTEGER NOT NULL);
                    CREATE TRIGGER entries_insert AFTER INSERT ON entries BEGIN
                        UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.cost;
                    END;
                    INSERT INTO totals VALUES (0, 0, 0);
                    INSERT INTO entries (key, value, size, cost, metadata) VALUES ('old', x'010203', 3, 50, x'01000000');
                    INSERT INTO recency VALUES (1, 1);
                    """)
        }
        try queue.close()
        let store = try open()
        #expect(try await store.statistics().entries == 0)
        #expect(try await store.entry(forKey: "old", now: 0) == nil)
        try await store.store(Self.entry("new", size: 500))
        #expect(try await store.entry(forKey: "new", now: 0) == Self.entry("new", size: 500))
        #expect(try await store.statistics().entries == 1)
        try await store.close()
    }

    /// Each store keeps the totals in memory; when another connection (another process) wrote the file meanwhile, the
    /// next write counts them again, so the limits still hold when `store` returns.
    @Test func limitsHoldAcrossConnections() async throws {
        let configuration = SQLiteCacheStore.Configuration(countLimit: 3, inlineLimit: 1_000)
        let first = try open(configuration)
        try await first.store(Self.entry("a", size: 10))
        try await first.store(Self.entry("b", size: 10))
        // Opened now, the second store's ticks follow the first's (each process counts its own from the largest).
        let second = try open(configuration)
        #expect(try await second.store(Self.entry("c", size: 10)).evicted.isEmpty)
        #expect(try await second.store(Self.entry("d", size: 10)).evicted.map(\.key) == ["a"])
        #expect(try await first.store(Self.entry("e", size: 10)).evicted.map(\.key) == ["b"])
        #expect(try await first.removeEntry(forKey: "c"))
        #expect(try await second.store(Self.entry("f", size: 10)).evicted.isEmpty)
        #expect(try await second.store(Self.entry("g", size: 10)).evicted.map(\.key) == ["e"])
        let statistics = try await first.statistics()
        #expect(statistics.entries == 3)
        #expect(statistics.bytes == ["d", "f", "g"].reduce(0) { $0 + Self.entry($1, size: 10).cost })
        try await second.close()
        try await first.close()
    }

    /// Expired entries go by `removeExpired` (a scan of `recency`) and, found by a read, with the next write.
    @Test func expiredEntriesAreRemoved() async throws {
        let store = try open()
        try await store.store(Self.entry("soon", size: 10).with(expiresAt: 100))
        try await store.store(Self.entry("later", size: 2_000).with(expiresAt: 200))
        try await store.store(Self.entry("never", size: 10))
        #expect(try await store.removeExpired(now: 150) == 1)
        #expect(try await store.entry(forKey: "later", now: 250) == nil)
        try await store.store(Self.entry("next", size: 10))
        #expect(try await store.summaries(after: nil, limit: 10).map(\.key) == ["never", "next"])
        #expect(try valueFiles().isEmpty)
        let statistics = try await store.statistics()
        #expect(statistics.entries == 2)
        #expect(statistics.bytes == Self.entry("never", size: 10).cost + Self.entry("next", size: 10).cost)
        try await store.close()
    }

    @Test func statisticsCountEntryCosts() async throws {
        let store = try open()
        let entries = (0..<20).map { Self.entry("s\($0)", size: $0 * 300, tags: ["t\($0 % 3)"]) }
        for entry in entries { try await store.store(entry) }
        let statistics = try await store.statistics()
        #expect(statistics.entries == 20)
        #expect(statistics.bytes == entries.reduce(0) { $0 + $1.cost })
        #expect(statistics.engine == "sqlite")
        try await store.close()
    }

    @Test func aDatabaseOfAnotherProgramIsRefused() throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE orders (id INTEGER PRIMARY KEY)") }
        try queue.close()
        do {
            _ = try open()
            Issue.record("another program's database was opened as a cache")
        } catch let error as CacheError {
            #expect(error.code == .storage)
            #expect(error.message.contains("orders"))
        }
    }

    @Test func prefixBoundsFollowUTF8Order() {
        #expect(SQLiteCacheStore.upperBound(ofPrefix: "ab") == "ac")
        #expect(SQLiteCacheStore.upperBound(ofPrefix: "a\u{10FFFF}") == "b")
        #expect(SQLiteCacheStore.upperBound(ofPrefix: "\u{D7FF}") == "\u{E000}")
        #expect(SQLiteCacheStore.upperBound(ofPrefix: "\u{10FFFF}") == nil)
    }
}

extension CacheEntry {
    func with(expiresAt: Int64) -> CacheEntry {
        var entry = self
        entry.metadata.expiresAt = expiresAt
        return entry
    }
}
