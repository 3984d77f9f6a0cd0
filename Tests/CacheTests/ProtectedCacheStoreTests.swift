import Crypto
import Foundation
import SuiteTestSupport
import Synchronization
import Testing

@testable import Cache

@Suite("Protected cache store")
struct ProtectedCacheStoreTests {
    let directory: URL
    let reports = Reports()

    init() throws {
        directory = try TestSupport.makeTemporaryDirectory("protected-cache")
    }

    /// The errors a protected store reported.
    final class Reports: Sendable {
        private let errors = Mutex<[CacheError]>([])
        var all: [CacheError] { errors.withLock { $0 } }
        func add(_ error: CacheError) { errors.withLock { $0.append(error) } }
    }

    func protect(_ base: any CacheStore, _ key: SymmetricKey) throws -> ProtectedCacheStore {
        let reports = reports
        return try ProtectedCacheStore(
            base: base, keyProvider: SymmetricKeyProvider(key), onError: { reports.add($0) })
    }

    /// Every file under the directory, and whether any contains `needle`.
    func diskContains(_ needle: String) throws -> Bool {
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let name = enumerator?.nextObject() as? String {
            let data = FileManager.default.contents(atPath: directory.path + "/" + name) ?? Data()
            if data.range(of: Data(needle.utf8)) != nil { return true }
        }
        return false
    }

    @Test func theDatabaseHoldsNoPlaintext() async throws {
        let base = try SQLiteCacheStore(
            path: directory.path + "/protected.sqlite", configuration: .init(inlineLimit: 1_000))
        let store = try protect(base, SymmetricKey(size: .bits256))
        let secrets = [
            "KEYSECRETALPHA", "VALUESECRETBRAVO", "TAGSECRETCHARLIE", "HEADERSECRETDELTA", "LARGESECRETECHO",
        ]
        try await store.store(
            CacheEntry(
                key: "https://example.com/\(secrets[0])", value: Array(secrets[1].utf8),
                metadata: CacheMetadata(tags: [secrets[2]], headers: [CacheHeader("x-secret", secrets[3])])))
        try await store.store(
            CacheEntry(key: "large", value: Array(String(repeating: secrets[4], count: 1_000).utf8)))
        #expect(
            try await store.entry(forKey: "https://example.com/\(secrets[0])", now: 0)?.value == Array(secrets[1].utf8))
        for secret in secrets { #expect(try !diskContains(secret), "\(secret) is on disk while open") }
        try await store.close()
        for secret in secrets { #expect(try !diskContains(secret), "\(secret) is on disk after closing") }
        #expect(try diskContains("SQLite format 3"), "the scan reads the database")
    }

    @Test func aFlippedByteIsAMissAndAReport() async throws {
        let base = try InMemoryCacheStore()
        let store = try protect(base, SymmetricKey(size: .bits256))
        try await store.store(CacheEntry(key: "k", value: Array("hello, world".utf8)))
        try await store.store(CacheEntry(key: "other", value: [1]))
        let stored = store.storedKey("k")
        var sealed = try #require(try await base.entry(forKey: stored, now: 0))
        sealed.value[sealed.value.count / 2] ^= 0x01
        try await base.store(sealed)

        #expect(try await store.entry(forKey: "k", now: 0) == nil)
        #expect(reports.all.map(\.code) == [.undecryptable])
        #expect(try await store.entry(forKey: "other", now: 0)?.value == [1], "other entries are unharmed")

        // A sealed value moved under another key fails too (it is bound to its stored key).
        let moved = try #require(try await base.entry(forKey: store.storedKey("other"), now: 0))
        try await base.store(CacheEntry(key: stored, value: moved.value, metadata: moved.metadata))
        #expect(try await store.entry(forKey: "k", now: 0) == nil)
        #expect(reports.all.count == 2)
    }

    @Test func anotherKeyFindsNothing() async throws {
        let base = try SQLiteCacheStore(path: directory.path + "/protected.sqlite")
        let first = try protect(base, SymmetricKey(size: .bits256))
        let entry = CacheEntry(key: "k", value: [1, 2, 3], metadata: CacheMetadata(tags: ["t"]))
        try await first.store(entry)
        #expect(try await first.entry(forKey: "k", now: 0) == entry)

        let second = try protect(base, SymmetricKey(size: .bits256))
        #expect(try await second.entry(forKey: "k", now: 0) == nil)
        #expect(try await second.removeEntries(taggedWith: "t") == 0)
        #expect(try await second.summaries(after: nil, limit: 10).isEmpty)
        #expect(reports.all.allSatisfy { $0.code == .undecryptable }, "unreadable summaries are reported, not thrown")
        #expect(try await first.entry(forKey: "k", now: 0) == entry, "the other key's entries stay")
        try await base.close()
    }

    @Test func theKeyFileIsCreatedOwnerOnlyAndReused() throws {
        let path = directory.path + "/cache.key"
        let key = try FileKeyProvider(path: path).key()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 32)
        let again = try FileKeyProvider(path: path).key()
        #expect(again.withUnsafeBytes { Array($0) } == key.withUnsafeBytes { Array($0) })
    }

    @Test func anUnsafeOrMisshapenKeyFileIsRefused() throws {
        let path = directory.path + "/cache.key"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(count: 32), attributes: [.posixPermissions: 0o644]))
        do {
            _ = try FileKeyProvider(path: path).key()
            Issue.record("a 0644 key file was accepted")
        } catch let error as CacheError {
            #expect(error.code == .key)
            #expect(error.message.contains("644"))
            #expect(error.hint?.contains("chmod 600") == true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(throws: Never.self) { try FileKeyProvider(path: path).key() }

        let short = directory.path + "/short.key"
        #expect(
            FileManager.default.createFile(
                atPath: short, contents: Data(count: 31), attributes: [.posixPermissions: 0o600]))
        do {
            _ = try FileKeyProvider(path: short).key()
            Issue.record("a 31-byte key file was accepted")
        } catch let error as CacheError {
            #expect(error.code == .key)
        }
        #expect(throws: CacheError.self) {
            try FileKeyProvider(path: directory.path + "/no/such/dir/cache.key").key()
        }
        #expect(throws: CacheError.self) {
            try ProtectedCacheStore(
                base: InMemoryCacheStore(), keyProvider: SymmetricKeyProvider(SymmetricKey(size: .bits128)))
        }
    }

    @Test func evictionsAreReportedWithRealKeys() async throws {
        let base = try InMemoryCacheStore(byteLimit: 2_000)
        let store = try protect(base, SymmetricKey(size: .bits256))
        try await store.store(CacheEntry(key: "first", value: [UInt8](repeating: 1, count: 600)))
        try await store.store(CacheEntry(key: "second", value: [UInt8](repeating: 2, count: 600)))
        let outcome = try await store.store(CacheEntry(key: "third", value: [UInt8](repeating: 3, count: 600)))
        #expect(outcome.evicted.map(\.key) == ["first"])
        #expect(outcome.evicted.first?.bytes == 600)
    }
}
