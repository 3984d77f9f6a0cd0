import ArgumentParser
import Foundation
import SuiteHost

/// `suite cache …`: the HTTP and data cache from the command line.
struct CacheCommand: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Fetch through the cache, list, inspect and purge it, and keep secrets in its protected tier.",
        discussion: """
            Responses are keyed by method, normalised URL (query items in any order), the headers their Vary names, \
            and a scope. Freshness follows Cache-Control, Expires and Age; stale responses are revalidated with \
            If-None-Match / If-Modified-Since. The cache status is the vocabulary of the Cache-Status header: hit, \
            miss, stale, revalidated, bypass.
            """,
        subcommands: [Get.self, List.self, Stats.self, Inspect.self, Purge.self, Secret.self])

    struct Get: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "get",
            abstract: "GET a URL through the cache: the body on stdout, the cache status on stderr.",
            discussion: """
                Example: suite cache get 'https://api.example.com/users?page=1' --policy cache-first --max-age 600. \
                Policies: \(CachePolicy.names.joined(separator: ", ")).
                """)

        @Argument(help: "The absolute http:// or https:// URL.") var url: String
        @Option(help: ArgumentHelp("How to use the cache (default: http, HTTP's own rules).", valueName: "policy"))
        var policy: String = "http"
        @Option(
            help: ArgumentHelp(
                "Seconds: the oldest stored response cache-first accepts, or the window of stale-while-revalidate / stale-if-error.",
                valueName: "seconds"))
        var maxAge: Int?
        @Option(
            name: .customLong("header"), help: ArgumentHelp("A request header (repeatable).", valueName: "name:value"))
        var headers: [String] = []
        @Option(help: ArgumentHelp("Whose response this is (e.g. a user id), for per-user responses.", valueName: "id"))
        var scope: String?
        @Flag(help: "Keep the response in the protected tier only (encrypted at rest).") var sensitive = false
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            if let maxAge, maxAge < 0 {
                throw SuiteError(.invalidArgument, "--max-age must be a number of seconds ≥ 0, not \(maxAge)")
            }
            let policy = try CachePolicy(parsing: policy, seconds: maxAge)
            let headers = try headers.map(CacheCommand.header)
            let client = try await context.cachedHTTPClient()
            let response = try await client.send(
                .init(url: url, headers: headers, policy: policy, scope: scope, sensitive: sensitive))
            if globals.json {
                Output.json(
                    .object([
                        "status": .int(Int64(response.status)), "cacheStatus": .string(response.cacheStatus.rawValue),
                        "headers": .object(
                            Dictionary(response.headers.map { ($0.name, JSONValue.string($0.value)) }) { a, b in
                                .string((a.stringValue ?? "") + ", " + (b.stringValue ?? ""))
                            }),
                        "bytes": .int(Int64(response.body.count)),
                    ]))
            } else {
                FileHandle.standardOutput.write(Data(response.body))
                FileHandle.standardError.write(
                    Data(
                        "cache: \(response.cacheStatus.rawValue) (HTTP \(response.status), \(response.body.count) bytes, age \(response.age) s)\n"
                            .utf8))
            }
        }
    }

    struct List: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "ls", abstract: "List cached entries in key order.")

        @Option(help: "Show at most this many entries.") var limit: Int = 100
        @Option(help: ArgumentHelp("Start after this key (to page).", valueName: "key")) var after: String?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            guard limit > 0 else { throw SuiteError(.invalidArgument, "--limit must be at least 1, not \(limit)") }
            let cache = try await context.dataCache()
            let summaries = try await cache.store.summaries(after: after, limit: limit)
            let now = cache.now
            if globals.json {
                Output.json(.array(summaries.map { CacheCommand.json($0, now: now) }))
                return
            }
            if summaries.isEmpty {
                Output.print(after == nil ? "the cache is empty" : "no entries after \(after!)")
                return
            }
            var table = TextTable(["KEY", "BYTES", "STATUS", "STORED", "STATE"], alignments: [.left, .right, .right])
            for summary in summaries {
                table.append([
                    summary.key, "\(summary.bytes)", summary.metadata.status.map { "\($0)" } ?? "-",
                    CacheCommand.ago(summary.metadata.storedAt, now: now),
                    CacheCommand.state(summary.metadata, now: now),
                ])
            }
            Output.print(table.render())
            if summaries.count == limit {
                Output.print("… more: suite cache ls --after '\(summaries.last!.key)'")
            }
        }
    }

    struct Stats: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Hit ratio (every command so far), entries and bytes per tier.")
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let cache = try await context.dataCache()
            let totals = try context.cacheCounters().totals()
            var tiers = [try await cache.store.statistics()]
            if let tiered = cache.store as? TieredCacheStore {
                let statistics = try await tiered.tierStatistics()
                tiers = [statistics.memory, statistics.back]
            }
            if globals.json {
                Output.json(
                    .object([
                        "hits": .int(Int64(totals.hits)), "misses": .int(Int64(totals.misses)),
                        "hitRatio": .double(totals.hitRatio), "stores": .int(Int64(totals.stores)),
                        "evictions": .int(Int64(totals.evictions)), "errors": .int(Int64(totals.errors)),
                        "tiers": .array(
                            tiers.map { tier in
                                .object([
                                    "engine": .string(tier.engine), "entries": .int(Int64(tier.entries)),
                                    "bytes": .int(Int64(tier.bytes)),
                                    "byteLimit": tier.byteLimit.map { .int(Int64($0)) } ?? .null,
                                ])
                            }),
                    ]))
                return
            }
            let lookups = totals.hits + totals.misses
            Output.print(
                "hit ratio  \(String(format: "%.1f", totals.hitRatio * 100))% (\(totals.hits) hits, \(totals.misses) misses"
                    + (lookups == 0 ? ", no lookups yet" : "") + ")")
            Output.print("stored     \(totals.stores) entries, \(totals.evictions) evicted, \(totals.errors) errors")
            Output.print("")
            var table = TextTable(
                ["TIER", "ENTRIES", "BYTES", "LIMIT", "USE"], alignments: [.left, .right, .right, .right])
            for tier in tiers {
                let limit = tier.byteLimit.map { CacheModule.formatBytes($0) } ?? "-"
                let share = tier.byteLimit.map { Double(tier.bytes) / Double(max(1, $0)) } ?? 0
                table.append([
                    tier.engine, "\(tier.entries)", CacheModule.formatBytes(tier.bytes), limit,
                    String(repeating: "█", count: Int((share * 20).rounded()))
                        + String(repeating: "░", count: 20 - Int((share * 20).rounded())),
                ])
            }
            Output.print(table.render())
        }
    }

    struct Inspect: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Show what is stored for a URL (or a plain key): freshness, headers, size; nothing is fetched.")

        @Argument(help: "A URL, or with --key a cache key as `suite cache ls` shows it.") var url: String
        @Flag(help: "Treat the argument as a raw cache key.") var key = false
        @Option(help: ArgumentHelp("The scope the response was stored under.", valueName: "id")) var scope: String?
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let cache = try await context.dataCache()
            let client = try await context.cachedHTTPClient()
            var keys: [String]
            if key {
                keys = [url]
            } else {
                let cacheKey = CacheKey(
                    url: try NormalizedURL(url, removing: client.rules.transientQueryItems), scope: scope)
                keys = [cacheKey.primary]
                // Varying responses: every variant stored under this URL.
                keys += try await cache.store.summaries(after: cacheKey.primary + " vary", limit: 50)
                    .map(\.key).filter { $0.hasPrefix(cacheKey.primary + " vary[") }
            }
            var found: [CacheEntry] = []
            for key in keys {
                if let entry = await cache.entry(forKey: key, record: false) { found.append(entry) }
            }
            guard !found.isEmpty else {
                throw CacheError(
                    .notCached, "nothing is cached for \(keys[0])",
                    hint: "fetch it with `suite cache get \(url)`, or list keys with `suite cache ls`")
            }
            let now = cache.now
            if globals.json {
                Output.json(
                    .array(
                        found.map {
                            CacheCommand.json(key: $0.key, bytes: $0.value.count, metadata: $0.metadata, now: now)
                        }))
                return
            }
            for entry in found {
                let metadata = entry.metadata
                Output.print("key        \(entry.key)")
                Output.print("bytes      \(entry.value.count)")
                if let status = metadata.status { Output.print("status     HTTP \(status)") }
                Output.print("stored     \(CacheCommand.ago(metadata.storedAt, now: now))")
                Output.print("state      \(CacheCommand.state(metadata, now: now))")
                if !metadata.tags.isEmpty { Output.print("tags       \(metadata.tags.joined(separator: ", "))") }
                for header in metadata.headers { Output.print("  \(header.name): \(header.value)") }
                Output.print("")
            }
        }
    }

    struct Purge: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "purge",
            abstract: "Remove entries: by URL prefix, by tag, the expired ones, or all (exactly one of them).")

        @Option(help: ArgumentHelp("Entries whose URL starts with this (normalised).", valueName: "url-prefix"))
        var prefix: String?
        @Option(help: ArgumentHelp("Entries with this tag.", valueName: "tag")) var tag: String?
        @Flag(help: "The expired entries.") var expired = false
        @Flag(help: "Every entry (secrets stay).") var all = false
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let chosen = [prefix != nil, tag != nil, expired, all].filter { $0 }.count
            guard chosen == 1 else {
                throw SuiteError(
                    .invalidArgument,
                    chosen == 0 ? "say what to purge" : "give only one of --prefix, --tag, --expired, --all",
                    hint: "e.g. suite cache purge --prefix https://api.example.com/users, or --expired")
            }
            let cache = try await context.dataCache()
            let removed: Int
            if let prefix {
                removed = try await cache.removeValues(withPrefix: CacheKey.prefix(urlPrefix: prefix))
            } else if let tag {
                removed = try await cache.removeValues(taggedWith: tag)
            } else if expired {
                removed = try await cache.removeExpired()
            } else {
                removed = try await cache.removeAll()
            }
            if globals.json {
                Output.json(.object(["removed": .int(Int64(removed))]))
            } else {
                Output.print("removed \(removed) entr\(removed == 1 ? "y" : "ies")")
            }
        }
    }

    struct Secret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "secret",
            abstract: "Keep secrets in the protected tier (AES-GCM, key file with mode 0600).",
            subcommands: [SetSecret.self, GetSecret.self, RemoveSecret.self])
    }

    struct SetSecret: SuiteSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Store a secret read from standard input (never from the command line).",
            discussion: "Example: printf %s \"$TOKEN\" | suite cache secret set api-token")
        @Argument(help: "The secret's name.") var name: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let value = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
            guard !value.isEmpty else {
                throw SuiteError(
                    .invalidArgument, "no secret on standard input",
                    hint: "pipe it in: printf %s \"$TOKEN\" | suite cache secret set \(name)")
            }
            try await context.dataCache().setSecret(value, named: name)
            if globals.json {
                Output.json(.object(["stored": .string(name), "bytes": .int(Int64(value.count))]))
            } else {
                FileHandle.standardError.write(Data("stored secret '\(name)' (\(value.count) bytes)\n".utf8))
            }
        }
    }

    struct GetSecret: SuiteSubcommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a secret to stdout.")
        @Argument(help: "The secret's name.") var name: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            guard let value = try await context.dataCache().secret(named: name) else {
                throw CacheError(
                    .notCached, "no secret named '\(name)' (or it could not be decrypted)",
                    hint: "store it with `printf %s VALUE | suite cache secret set \(name)`")
            }
            if globals.json {
                Output.json(.object(["name": .string(name), "value": .string(String(decoding: value, as: UTF8.self))]))
            } else {
                FileHandle.standardOutput.write(Data(value))
            }
        }
    }

    struct RemoveSecret: SuiteSubcommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a secret.")
        @Argument(help: "The secret's name.") var name: String
        @OptionGroup var globals: GlobalOptions

        func run(_ context: SuiteContext) async throws {
            let removed = try await context.dataCache().removeSecret(named: name)
            if globals.json {
                Output.json(.object(["removed": .bool(removed)]))
            } else {
                Output.print(removed ? "removed secret '\(name)'" : "no secret named '\(name)'")
            }
        }
    }

    // MARK: - Helpers

    static func header(_ text: String) throws -> CacheHeader {
        let parts = text.split(separator: ":", maxSplits: 1)
        guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
            throw SuiteError(
                .invalidArgument, "bad header '\(text)'",
                hint: "write --header 'Name: value', e.g. --header 'Accept-Language: en'")
        }
        return CacheHeader(parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces))
    }

    static func ago(_ time: Int64, now: Int64) -> String {
        let seconds = max(0, (now - time) / 1000)
        switch seconds {
        case ..<60: return "\(seconds) s ago"
        case ..<3600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }

    static func state(_ metadata: CacheMetadata, now: Int64) -> String {
        if metadata.isExpired(at: now) { return "expired" }
        if let fresh = metadata.freshUntil {
            return now < fresh ? "fresh \((fresh - now) / 1000) s more" : "stale \((now - fresh) / 1000) s"
        }
        if let expiry = metadata.expiresAt { return "expires in \((expiry - now) / 1000) s" }
        return "kept until evicted"
    }

    static func json(_ summary: CacheEntrySummary, now: Int64) -> JSONValue {
        json(key: summary.key, bytes: summary.bytes, metadata: summary.metadata, now: now)
    }

    static func json(key: String, bytes: Int, metadata: CacheMetadata, now: Int64) -> JSONValue {
        .object([
            "key": .string(key), "bytes": .int(Int64(bytes)),
            "status": metadata.status.map { .int(Int64($0)) } ?? .null,
            "storedAt": .int(metadata.storedAt), "freshUntil": metadata.freshUntil.map { .int($0) } ?? .null,
            "expiresAt": metadata.expiresAt.map { .int($0) } ?? .null,
            "state": .string(state(metadata, now: now)),
            "tags": .array(metadata.tags.map(JSONValue.string)),
            "headers": .array(
                metadata.headers.map { .object(["name": .string($0.name), "value": .string($0.value)]) }),
        ])
    }
}
