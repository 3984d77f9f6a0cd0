import Cache
import CacheStoreContract
import Crypto
import Foundation
import SuiteTestSupport
import Testing

/// The built-in stores, made fresh for a test.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, protected, tiered
    case sqliteWriteBehind = "sqlite-write-behind", tieredWriteBehind = "tiered-write-behind"

    var testDescription: String { rawValue }

    /// An empty store of this kind with `limits`, its files in a new temporary directory.
    func make(_ limits: CacheStoreContract.Limits) async throws -> any CacheStore {
        let directory = try TestSupport.makeTemporaryDirectory("cache-\(rawValue)")
        var configuration = SQLiteCacheStore.Configuration(
            byteLimit: limits.byteLimit, countLimit: limits.countLimit, inlineLimit: 1_024)
        if self == .sqliteWriteBehind || self == .tieredWriteBehind {
            configuration.writeBehind = .milliseconds(20)
            configuration.writeBehindLimit = 16 << 10
        }
        switch self {
        case .memory:
            return try InMemoryCacheStore(byteLimit: limits.byteLimit, countLimit: limits.countLimit)
        case .sqlite, .sqliteWriteBehind:
            return try SQLiteCacheStore(path: directory.path + "/cache.sqlite", configuration: configuration)
        case .protected:
            let base = try SQLiteCacheStore(path: directory.path + "/protected.sqlite", configuration: configuration)
            return try ProtectedCacheStore(
                base: base, keyProvider: SymmetricKeyProvider(SymmetricKey(size: .bits256)),
                onError: { error in Issue.record("unexpected report: \(error)") })
        case .tiered, .tieredWriteBehind:
            let back = try SQLiteCacheStore(path: directory.path + "/cache.sqlite", configuration: configuration)
            return TieredCacheStore(memory: try InMemoryCacheStore(byteLimit: max(1, limits.byteLimit / 4)), back: back)
        }
    }
}

@Suite("The CacheStore contract")
struct CacheStoreContractTests {
    @Test(arguments: StoreKind.allCases)
    func everyBuiltInStorePassesTheContract(_ kind: StoreKind) async throws {
        try await CacheStoreContract.check { limits in try await kind.make(limits) }
    }
}
