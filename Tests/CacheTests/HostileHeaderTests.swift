import Foundation
import SuiteCore
import SuiteHTTP
import SuiteTestSupport
import Testing
import TransportTestSupport

@testable import Cache

/// Response headers an origin controls, at their extremes: a `Cache-Control` directive that is only `=`, delta-seconds
/// past 64 bits, an `Age` of 2^63 - 1 or `1e300`. Each used to trap the client (an index out of range, a Double too
/// large for Int64); found by `make fuzz`, harness `cache-http` (Tools/fuzz/FINDINGS.md).
@Suite("Hostile cache headers")
struct HostileHeaderTests {
    @Test func aDirectiveThatIsOnlyAnEqualsSignIsIgnored() {
        #expect(CacheControl(["="]) == CacheControl())
        #expect(CacheControl(["max-age=60, =, ==, =5"]).maxAge == 60)
    }

    @Test func deltaSecondsPast64BitsCountAs2To31() {
        let control = CacheControl([
            "max-age=99999999999999999999, s-maxage=9223372036854775807, stale-if-error=2147483649"
        ])
        #expect(control.maxAge == 2_147_483_648)
        #expect(control.sharedMaxAge == 2_147_483_648)
        #expect(control.staleIfError == 2_147_483_648)
        // Not delta-seconds at all: a sign, a fraction, an exponent.
        #expect(CacheControl(["max-age=-5"]).maxAge == 0)
        #expect(CacheControl(["stale-while-revalidate=1e3"]).staleWhileRevalidate == nil)
    }

    @Test func anAgeThatIsNotDeltaSecondsIsNoAge() {
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        for value in ["1e300", "inf", "nan", "-5", "0x10", "1.5"] {
            #expect(HTTPFreshness(headers: [CacheHeader("age", value)], responseTime: time).initialAge == 0)
        }
        let huge = HTTPFreshness(headers: [CacheHeader("age", "9223372036854775807")], responseTime: time)
        #expect(huge.initialAge == 2_147_483_648)
    }

    @Test(arguments: TransportKind.allCases) func anOriginSendingEveryExtremeIsServedTwice(_ kind: TransportKind)
        async throws
    {
        let nginx = try NginxServer(files: ["hostile/h.txt": "hostile"])
        defer { nginx.stop() }
        let transport = kind.make()
        let cache = DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20), clock: ManualWallClock(Date()))
        let client = CachedHTTPClient(cache: cache, transport: transport)
        let first = try await client.send(.init(url: nginx.url("/hostile/h.txt")))
        let second = try await client.send(.init(url: nginx.url("/hostile/h.txt")))
        #expect(first.status == 200 && second.status == 200)
        #expect(second.body == Array("hostile".utf8))
        try await transport.shutdown()
    }
}
