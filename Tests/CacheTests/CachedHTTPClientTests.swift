import Crypto
import Foundation
import SuiteCore
import SuiteHTTP
import SuiteTestSupport
import Synchronization
import Testing
import TransportTestSupport

@testable import Cache

/// The HTTP client against a real nginx on loopback (files with ETag and Last-Modified, `Cache-Control` per folder);
/// what reached the origin is read from nginx's access log.
@Suite("CachedHTTPClient against nginx", .serialized)
final class CachedHTTPClientTests {
    let nginx: NginxServer
    /// One transport of each kind: every test runs over URLSession's and AsyncHTTPClient's.
    let transports = TransportKind.allCases.map { ($0, $0.make()) }

    init() throws {
        nginx = try NginxServer(files: [
            "fresh/a.txt": "alpha", "fresh/pay.txt": "secret payment", "short/s.txt": "short-lived",
            "nocache/n.txt": "revalidate me", "nostore/x.txt": "never kept", "vary/v.txt": "varies",
            "swr/w.txt": "stale ok", "slow/big.txt": String(repeating: "x", count: 400_000),
        ])
    }

    deinit {
        let transports = transports
        Task { for (_, transport) in transports { try? await transport.shutdown() } }
        nginx.stop()
    }

    /// The transport of `kind`.
    func transport(_ kind: TransportKind) -> any HTTPTransport {
        transports.first { $0.0 == kind }!.1
    }

    func client(
        _ kind: TransportKind, clock: ManualWallClock = ManualWallClock(Date()), rules: CacheRules = CacheRules(),
        verify: (@Sendable (CachedHTTPClient.Response) -> Bool)? = nil
    ) throws -> CachedHTTPClient {
        let cache = DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20), clock: clock)
        return CachedHTTPClient(cache: cache, transport: transport(kind), rules: rules, verify: verify)
    }

    @Test(arguments: TransportKind.allCases) func aSecondGetIsAHit(_ kind: TransportKind) async throws {
        let client = try client(kind)
        let first = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        let second = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        #expect(first.cacheStatus == .miss && first.status == 200)
        #expect(second.cacheStatus == .hit)
        #expect(second.body == Array("alpha".utf8))
        #expect(second.header("cache-status") == "Suite; hit")
        #expect(await nginx.requests(for: "/fresh/a.txt").count == 1)
    }

    @Test(arguments: TransportKind.allCases) func queryItemsInAnotherOrderHitAndOtherValuesMiss(_ kind: TransportKind)
        async throws
    {
        let client = try client(kind)
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt?b=2&a=1")))
        let reordered = try await client.send(.init(url: nginx.url("/fresh/a.txt?a=1&b=2")))
        let other = try await client.send(.init(url: nginx.url("/fresh/a.txt?a=1&b=3")))
        #expect(reordered.cacheStatus == .hit)
        #expect(other.cacheStatus == .miss)
        #expect(client.upstreamRequests == 2)
    }

    @Test(arguments: TransportKind.allCases) func aPostIsNeitherCachedNorServedFromTheCache(_ kind: TransportKind)
        async throws
    {
        let client = try client(kind)
        let post = try await client.send(.init(method: "POST", url: nginx.url("/fresh/a.txt"), body: Array("x".utf8)))
        let again = try await client.send(.init(method: "POST", url: nginx.url("/fresh/a.txt"), body: Array("x".utf8)))
        let get = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        #expect(post.cacheStatus == .bypass && again.cacheStatus == .bypass)
        #expect(get.cacheStatus == .miss)
        #expect(await nginx.requests(for: "/fresh/a.txt", expected: 3).filter { $0.hasPrefix("POST") }.count == 2)
    }

    @Test(
        "no-cache revalidates every time: a 304 in nginx's log, the stored body served",
        arguments: TransportKind.allCases)
    func noCacheRevalidatesWithA304(_ kind: TransportKind) async throws {
        let client = try client(kind)
        let first = try await client.send(.init(url: nginx.url("/nocache/n.txt")))
        let second = try await client.send(.init(url: nginx.url("/nocache/n.txt")))
        #expect(first.cacheStatus == .miss)
        #expect(second.cacheStatus == .revalidated)
        #expect(second.body == Array("revalidate me".utf8))
        let log = await nginx.requests(for: "/nocache/n.txt", expected: 2)
        #expect(log.count == 2)
        let etag = try #require(first.header("etag"))
        #expect(log.last == "GET /nocache/n.txt 304 \"\(etag)\"")
    }

    @Test(
        "max-age expires with the injected clock, then a conditional request revalidates",
        arguments: TransportKind.allCases)
    func maxAgeExpiryFollowsTheClock(_ kind: TransportKind) async throws {
        let clock = ManualWallClock(Date())
        let client = try client(kind, clock: clock)
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))
        clock.advance(by: 4)
        #expect(try await client.send(.init(url: nginx.url("/short/s.txt"))).cacheStatus == .hit)
        clock.advance(by: 2)
        let expired = try await client.send(.init(url: nginx.url("/short/s.txt")))
        #expect(expired.cacheStatus == .revalidated)
        #expect(
            await nginx.requests(for: "/short/s.txt", expected: 2).map { $0.split(separator: " ")[2] } == [
                "200", "304",
            ])
        // Revalidation refreshed it: fresh again for max-age.
        clock.advance(by: 4)
        #expect(try await client.send(.init(url: nginx.url("/short/s.txt"))).cacheStatus == .hit)
    }

    @Test(arguments: TransportKind.allCases) func varyIsRespected(_ kind: TransportKind) async throws {
        let client = try client(kind)
        func get(_ language: String) async throws -> CacheStatus {
            try await client.send(
                .init(url: nginx.url("/vary/v.txt"), headers: [CacheHeader("Accept-Language", language)])
            ).cacheStatus
        }
        #expect(try await get("en") == .miss)
        #expect(try await get("en") == .hit)
        #expect(try await get("fr") == .miss)
        #expect(try await get("fr") == .hit)
        #expect(try await get("en") == .hit)
        #expect(await nginx.requests(for: "/vary/v.txt", expected: 2).count == 2)
    }

    @Test(arguments: TransportKind.allCases) func noStoreIsNeverKept(_ kind: TransportKind) async throws {
        let client = try client(kind)
        _ = try await client.send(.init(url: nginx.url("/nostore/x.txt")))
        let second = try await client.send(.init(url: nginx.url("/nostore/x.txt")))
        #expect(second.cacheStatus == .miss)
        #expect(await nginx.requests(for: "/nostore/x.txt", expected: 2).count == 2)
    }

    @Test("100 concurrent identical requests make one upstream request", arguments: TransportKind.allCases)
    func concurrentIdenticalRequestsAreCoalesced(_ kind: TransportKind) async throws {
        let client = try client(kind)
        let url = nginx.url("/slow/big.txt")
        let bodies = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 { group.addTask { try await client.send(.init(url: url)).body.count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(bodies.count == 100 && bodies.allSatisfy { $0 == 400_000 })
        #expect(await nginx.requests(for: "/slow/big.txt").count == 1)
        #expect(client.upstreamRequests == 1)
    }

    @Test(arguments: TransportKind.allCases) func neverCacheRulesAndTransientItems(_ kind: TransportKind) async throws {
        let rules = CacheRules(
            rules: [.init(pattern: "http://127.0.0.1:*/fresh/pay*", neverCache: true)],
            transientQueryItems: ["token"])
        let client = try client(kind, rules: rules)
        #expect(try await client.send(.init(url: nginx.url("/fresh/pay.txt"))).cacheStatus == .bypass)
        #expect(try await client.send(.init(url: nginx.url("/fresh/pay.txt"))).cacheStatus == .bypass)
        #expect(await nginx.requests(for: "/fresh/pay.txt", expected: 2).count == 2)
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt?token=1")))
        #expect(try await client.send(.init(url: nginx.url("/fresh/a.txt?token=2"))).cacheStatus == .hit)
    }

    @Test(arguments: TransportKind.allCases) func cacheOnlyAndCacheFirst(_ kind: TransportKind) async throws {
        let clock = ManualWallClock(Date())
        let client = try client(kind, clock: clock)
        await #expect(throws: CacheError.self) {
            try await client.send(.init(url: self.nginx.url("/short/s.txt"), policy: .cacheOnly))
        }
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))
        clock.advance(by: 60)
        #expect(try await client.send(.init(url: nginx.url("/short/s.txt"), policy: .cacheOnly)).cacheStatus == .stale)
        #expect(
            try await client.send(.init(url: nginx.url("/short/s.txt"), policy: .cacheFirst(maxAge: 120))).cacheStatus
                == .hit)
        #expect(
            try await client.send(.init(url: nginx.url("/short/s.txt"), policy: .cacheFirst(maxAge: 30))).cacheStatus
                != .hit)
    }

    @Test(
        "stale-if-error serves the stale response when the origin is down; without it the error surfaces",
        arguments: TransportKind.allCases)
    func staleIfErrorServesWhenTheOriginFails(_ kind: TransportKind) async throws {
        let clock = ManualWallClock(Date())
        let quick = kind.make(connectTimeout: .milliseconds(300))
        defer { Task { try? await quick.shutdown() } }
        let client = CachedHTTPClient(
            cache: DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20), clock: clock), transport: quick)
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))
        nginx.stop()
        clock.advance(by: 30)
        let stale = try await client.send(.init(url: nginx.url("/short/s.txt"), policy: .staleIfError(seconds: 60)))
        #expect(stale.cacheStatus == .stale)
        #expect(stale.body == Array("short-lived".utf8))
        await #expect(throws: CacheError.self) { try await client.send(.init(url: self.nginx.url("/short/s.txt"))) }
    }

    @Test(
        "stale-while-revalidate (from the response) serves at once and refreshes behind",
        arguments: TransportKind.allCases)
    func staleWhileRevalidateRefreshesBehind(_ kind: TransportKind) async throws {
        let clock = ManualWallClock(Date())
        let client = try client(kind, clock: clock)
        _ = try await client.send(.init(url: nginx.url("/swr/w.txt")))
        clock.advance(by: 5)
        let stale = try await client.send(.init(url: nginx.url("/swr/w.txt")))
        #expect(stale.cacheStatus == .stale)
        // The refresh behind it reaches nginx (a conditional request, answered 304).
        #expect(await nginx.requests(for: "/swr/w.txt", expected: 2).last?.contains(" 304 ") == true)
    }

    @Test(
        "cache-then-network yields the stored response flagged cached, then the origin's flagged fresh",
        arguments: TransportKind.allCases)
    func cacheThenNetworkYieldsBoth(_ kind: TransportKind) async throws {
        let client = try client(kind)
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        var origins: [CachedHTTPClient.FlaggedResponse.Origin] = []
        for try await flagged in client.responses(for: .init(url: nginx.url("/fresh/a.txt"), policy: .cacheThenNetwork))
        {
            origins.append(flagged.origin)
            #expect(flagged.response.body == Array("alpha".utf8))
        }
        #expect(origins == [.cached, .fresh])
        #expect(await nginx.requests(for: "/fresh/a.txt", expected: 2).count == 2)
    }

    @Test("the content check discards a stored response it rejects", arguments: TransportKind.allCases)
    func verifyHookDiscards(_ kind: TransportKind) async throws {
        let client = try client(kind, verify: { response in response.body.count > 100 })
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        #expect(try await client.send(.init(url: nginx.url("/fresh/a.txt"))).cacheStatus == .miss)
        #expect(await nginx.requests(for: "/fresh/a.txt", expected: 2).count == 2, "\(nginx.accessLog())")
    }

    @Test(arguments: TransportKind.allCases) func eventsAreCountedAndPublished(_ kind: TransportKind) async throws {
        let bus = EventBus()
        let names = Mutex<[String]>([])
        let token = bus.subscribe(named: "cache.hit", as: CacheEventPayload.self) { _, envelope in
            names.withLock { $0.append(envelope.name) }
        }
        let missToken = bus.subscribe(named: "cache.miss", as: CacheEventPayload.self) { _, envelope in
            names.withLock { $0.append(envelope.name) }
        }
        defer {
            token.cancel()
            missToken.cancel()
        }
        let cache = DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20), bus: bus)
        let client = CachedHTTPClient(cache: cache, transport: transport(kind))
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt")))
        #expect(names.withLock { $0 } == ["cache.miss", "cache.hit"])
        #expect(cache.counts.hits == 1 && cache.counts.misses == 1 && cache.counts.stores == 1)
    }
}

extension CachedHTTPClientTests {
    @Test(
        "what Cache publishes, with its envelope, matches docs/events.md field for field",
        arguments: TransportKind.allCases)
    func publishedEventsMatchTheCatalog(_ kind: TransportKind) async throws {
        let catalog = try EventCatalog.load()
        let bus = EventBus()
        let seen = Mutex<[(EventEnvelope, Set<String>)]>([])
        let token = bus.subscribeAll { event, envelope in
            guard let payload = event.payload as? CacheEventPayload,
                let data = try? JSONEncoder().encode(payload),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return }
            seen.withLock { $0.append((envelope, Set(object.keys))) }
        }
        defer { token.cancel() }
        let clock = ManualWallClock(Date())
        let cache = DataCache(store: try InMemoryCacheStore(byteLimit: 600), clock: clock, bus: bus)
        let client = CachedHTTPClient(cache: cache, transport: transport(kind))
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))  // miss, store
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))  // hit
        clock.advance(by: 10)
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))  // stale, then revalidated
        try await cache.set([UInt8](repeating: 1, count: 400), forKey: "big")  // evicts the response
        DataCache.errorReporter(bus: bus)(CacheError(.undecryptable, "tampered"))
        let events = seen.withLock { $0 }
        #expect(
            Set(events.map(\.0.name))
                == ["cache.miss", "cache.store", "cache.hit", "cache.stale", "cache.evict", "cache.error"])
        for (envelope, fields) in events {
            #expect(catalog[envelope.name] == fields, "\(envelope.name) carries \(fields.sorted())")
            #expect(envelope.source == "cache")
        }
    }
}

extension CachedHTTPClientTests {
    @Test(
        "a sensitive response (by request or by rule) is kept in the protected store only, and served from it",
        arguments: TransportKind.allCases)
    func sensitiveResponsesNeverTouchThePlainTiers(_ kind: TransportKind) async throws {
        let plain = try InMemoryCacheStore(byteLimit: 1 << 20)
        let protected = try ProtectedCacheStore(
            base: try InMemoryCacheStore(byteLimit: 1 << 20),
            keyProvider: SymmetricKeyProvider(SymmetricKey(size: .bits256)))
        let cache = DataCache(store: plain, protectedStore: protected)
        let rules = CacheRules(rules: [.init(pattern: "http://127.0.0.1:*/short/**", sensitive: true)])
        let client = CachedHTTPClient(cache: cache, transport: transport(kind), rules: rules)
        _ = try await client.send(.init(url: nginx.url("/fresh/a.txt"), sensitive: true))
        _ = try await client.send(.init(url: nginx.url("/short/s.txt")))
        #expect(try await plain.statistics().entries == 0)
        #expect(try await protected.statistics().entries == 2)
        #expect(try await client.send(.init(url: nginx.url("/fresh/a.txt"), sensitive: true)).cacheStatus == .hit)
        #expect(try await client.send(.init(url: nginx.url("/short/s.txt"))).cacheStatus == .hit)
        // Without a protected store, a sensitive request is refused rather than kept in the clear.
        let bare = CachedHTTPClient(cache: DataCache(store: plain), transport: transport(kind))
        await #expect(throws: CacheError.self) {
            try await bare.send(.init(url: self.nginx.url("/fresh/a.txt"), sensitive: true))
        }
    }
}
