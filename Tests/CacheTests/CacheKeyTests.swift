import Foundation
import Testing

@testable import Cache

@Suite("Cache keys, rules and HTTP headers")
struct CacheKeyTests {
    @Test("scheme and host case, default ports, query order and escapes of unreserved characters do not change the key")
    func equivalentURLsShareOneSpelling() throws {
        let spellings = [
            "HTTPS://Api.Example.com:443/users?page=2&sort=name", "https://api.example.com/users?sort=name&page=%32",
            "https://api.example.com:443/users?sort=name&page=2#top",
        ]
        let keys = try spellings.map { try NormalizedURL($0).text }
        #expect(Set(keys) == ["https://api.example.com/users?page=2&sort=name"])
        #expect(try NormalizedURL("http://example.com").text == "http://example.com/")
        #expect(try NormalizedURL("http://example.com:8080/a%2fb").text == "http://example.com:8080/a%2Fb")
    }

    @Test("different values, paths in another case or another port give another key")
    func differentRequestsNeverShareAKey() throws {
        let base = try NormalizedURL("https://example.com/users?page=1").text
        for other in [
            "https://example.com/users?page=2", "https://example.com/Users?page=1", "http://example.com/users?page=1",
            "https://example.com:8443/users?page=1", "https://example.com/users?page=1&page=2",
        ] {
            #expect(try NormalizedURL(other).text != base, "\(other)")
        }
    }

    @Test func transientQueryItemsAreStripped() throws {
        let a = try NormalizedURL("https://example.com/feed?token=abc&page=1", removing: ["token"])
        let b = try NormalizedURL("https://example.com/feed?page=1&token=xyz", removing: ["token"])
        #expect(a == b)
        #expect(a.text == "https://example.com/feed?page=1")
    }

    @Test func notAnHTTPURLIsAnErrorWithAHint() {
        for bad in ["example.com/a", "ftp://example.com/a", "https:///nohost", ""] {
            #expect(throws: CacheError.self) { try NormalizedURL(bad) }
        }
        do {
            _ = try NormalizedURL("ftp://example.com/a")
        } catch let error as CacheError {
            #expect(error.code == .invalidInput)
            #expect(error.hint != nil)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func keysStartWithMethodAndURLSoAPrefixCoversAURLTree() throws {
        let key = CacheKey(url: try NormalizedURL("https://example.com/users/1?x=1"), scope: "u1")
        #expect(key.primary == "GET https://example.com/users/1?x=1 scope[u1]")
        #expect(key.primary.hasPrefix(CacheKey.prefix(urlPrefix: "HTTPS://EXAMPLE.com/users")))
        #expect(CacheKey.prefix(urlPrefix: "https://example.com") == "GET https://example.com")
        let varying = key.varying(by: ["accept-language"], requestHeaders: [CacheHeader("Accept-Language", " en ")])
        #expect(varying == "GET https://example.com/users/1?x=1 scope[u1] vary[accept-language=en]")
    }

    @Test func cacheControlDirectives() {
        let control = CacheControl(["max-age=60, no-cache", "Private, stale-while-revalidate=30, stale-if-error=\"5\""])
        #expect(control.maxAge == 60)
        #expect(control.noCache && control.isPrivate)
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.staleIfError == 5)
        #expect(!control.noStore)
        #expect(CacheControl(["max-age=abc"]).maxAge == 0)  // invalid: treated as stale
    }

    @Test func freshnessComesFromMaxAgeThenExpiresThenLastModified() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let date = CacheHeader("date", HTTPDate.format(now))
        #expect(
            HTTPFreshness(headers: [CacheHeader("cache-control", "max-age=30"), date], responseTime: now).lifetime == 30
        )
        let shared = [CacheHeader("cache-control", "max-age=30, s-maxage=90"), date]
        #expect(HTTPFreshness(headers: shared, responseTime: now, shared: true).lifetime == 90)
        #expect(HTTPFreshness(headers: shared, responseTime: now, shared: false).lifetime == 30)
        let expires = [date, CacheHeader("expires", HTTPDate.format(now.addingTimeInterval(120)))]
        #expect(HTTPFreshness(headers: expires, responseTime: now).lifetime == 120)
        let modified = [date, CacheHeader("last-modified", HTTPDate.format(now.addingTimeInterval(-1000)))]
        let heuristic = HTTPFreshness(headers: modified, responseTime: now)
        #expect(heuristic.lifetime == 100 && !heuristic.isExplicit)
        let aged = HTTPFreshness(headers: [CacheHeader("age", "12"), date], responseTime: now)
        #expect(aged.initialAge == 12)
        #expect(HTTPFreshness(headers: [CacheHeader("expires", "0"), date], responseTime: now).lifetime == 0)
    }

    @Test func globsMatchWithinAndAcrossSegments() {
        #expect(CacheRules.glob("https://api.example.com/payments/**", matches: "https://api.example.com/payments/1/x"))
        #expect(CacheRules.glob("https://*.example.com/users/*", matches: "https://api.example.com/users/7"))
        #expect(!CacheRules.glob("https://*.example.com/users/*", matches: "https://api.example.com/users/7/posts"))
        #expect(!CacheRules.glob("https://api.example.com/pay", matches: "https://api.example.com/payments"))
    }

    @Test func policiesParseAndAMisspellingSuggestsTheName() throws {
        #expect(try CachePolicy(parsing: "Cache-First", seconds: 30) == .cacheFirst(maxAge: 30))
        #expect(try CachePolicy(parsing: "stale-if-error") == .staleIfError(seconds: 86_400))
        do {
            _ = try CachePolicy(parsing: "cache-frist")
            Issue.record("a misspelled policy was accepted")
        } catch let error as CacheError {
            #expect(error.hint?.contains("did you mean 'cache-first'?") == true)
        }
    }

    @Test("HTTP dates in the IMF-fixdate form and the two obsolete forms; anything else is no date")
    func httpDatesParse() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        for date in [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400),
            Date(timeIntervalSince1970: 1_800_000_123),
        ] {
            #expect(HTTPDate.parse(HTTPDate.format(date)) == date)
        }
        for bad in ["0", "", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 36 Nov 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }
}
