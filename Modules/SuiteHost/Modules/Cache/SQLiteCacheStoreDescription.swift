package import Cache
import Foundation
package import SuiteCore

/// The Cache module's `sqlite` store (the default): ``Cache/SQLiteCacheStore``, large values as files beside it.
///
/// ```yaml
/// cache:
///   engine: sqlite
///   options: {path: cache.sqlite, byte-limit: 268435456, count-limit: 100000, inline-limit: 16384}
///   # write-behind: 0.1 stages stores and writes them together every 100 ms (a crash loses those)
/// ```
package struct SQLiteCacheStoreDescription: EngineDescription {
    /// The decoded options.
    package struct Options: Sendable {
        /// The `path` option as written (resolved against the data directory when the store is made).
        package var path: JSONValue?
        /// The store's limits and write-behind.
        package var configuration: SQLiteCacheStore.Configuration
    }

    /// Creates the description.
    package init() {}

    package var name: String { "sqlite" }
    package var optionKeys: [String] { ["path", "byte-limit", "count-limit", "inline-limit", "write-behind"] }

    package func options(_ options: EngineOptions) throws -> Options {
        let limits = try CacheLimitOptions(options)
        var writeBehind: Duration?
        if let value = options["write-behind"] {
            guard let seconds = value.numberValue, seconds > 0, seconds <= 60 else {
                throw options.error(
                    "write-behind", "must be a number of seconds above 0 and at most 60, not \(value.jsonString)",
                    hint:
                        "e.g. write-behind: 0.1 (stores are written together every 100 ms; leave it out to commit each store)"
                )
            }
            writeBehind = .milliseconds(Int64((seconds * 1_000).rounded(.up)))
        }
        return Options(
            path: options["path"],
            configuration: SQLiteCacheStore.Configuration(
                byteLimit: limits.bytes ?? 256 << 20, countLimit: limits.count, inlineLimit: limits.inline ?? 16 << 10,
                writeBehind: writeBehind))
    }

    package func make(_ options: Options, in context: SuiteContext) async throws -> any CacheStore {
        try context.ensureDataDirectory()
        return try SQLiteCacheStore(
            path: context.dataFile(options.path, default: "cache.sqlite"), configuration: options.configuration,
            logger: context.logger)
    }

    /// The file, and its entries and bytes when it exists.
    package func status(_ options: Options, in context: SuiteContext) async -> ModuleStatus {
        var status = ModuleStatus(engine: name, location: context.dataFile(options.path, default: "cache.sqlite"))
        guard FileManager.default.fileExists(atPath: status.location) else {
            status.health = "ok (no data yet)"
            return status
        }
        do {
            let statistics = try await context.dataCache().store.statistics()
            status.details.append(.init("entries", "\(statistics.entries)"))
            status.details.append(.init("bytes", CacheModule.formatBytes(statistics.bytes)))
        } catch {
            status.health = "cannot open: \((error as? any SuiteDescribedError)?.message ?? "\(error)")"
            status.isHealthy = false
        }
        return status
    }
}

/// Options `byte-limit`, `count-limit` and `inline-limit`, shared by the built-in stores.
struct CacheLimitOptions {
    var bytes: Int?
    var count: Int?
    var inline: Int?

    init(_ options: EngineOptions) throws {
        let bytesHint = "a number of bytes, e.g. 268435456 for 256 MiB"
        func number(_ key: String, minimum: Int64, hint: String) throws -> Int? {
            guard let value = options[key] else { return nil }
            guard let number = value.intValue, number >= minimum, number <= Int64(Int.max / 2) else {
                throw options.error(key, "must be a whole number ≥ \(minimum), not \(value.jsonString)", hint: hint)
            }
            return Int(number)
        }
        bytes = try number("byte-limit", minimum: 1, hint: bytesHint)
        count = try number("count-limit", minimum: 1, hint: "a number of entries")
        inline = try number("inline-limit", minimum: 0, hint: bytesHint)
    }
}
