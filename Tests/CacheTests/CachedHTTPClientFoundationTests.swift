import CacheURLSession
import Foundation
import SuiteCore
import SuiteHTTP
import SuiteTestSupport
import Testing
import TransportTestSupport

@testable import Cache

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Foundation's shapes of the cache against a real nginx: `URLRequest` in, `(Data, HTTPURLResponse)` out, and `Data`
/// and `URL` keys on ``DataCache``.
@Suite("Cache with Foundation's types", .serialized)
final class CachedHTTPClientFoundationTests {
    let nginx: NginxServer

    init() throws {
        nginx = try NginxServer(files: ["fresh/a.txt": "alpha", "fresh/b.txt": "beta"])
    }

    deinit { nginx.stop() }

    @Test(
        "data(for: URLRequest) answers URLSession's (Data, HTTPURLResponse), through the cache",
        arguments: TransportKind.allCases)
    func dataForURLRequestGoesThroughTheCache(_ kind: TransportKind) async throws {
        let transport = kind.make()
        let client = CachedHTTPClient(
            cache: DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20)), transport: transport)
        let url = try #require(URL(string: nginx.url("/fresh/a.txt")))
        var request = URLRequest(url: url)
        request.setValue("text/plain", forHTTPHeaderField: "Accept")
        let (first, firstResponse) = try await client.data(for: request)
        let (second, secondResponse) = try await client.data(from: url)
        #expect(first == Data("alpha".utf8) && second == first)
        #expect(firstResponse.statusCode == 200 && firstResponse.url == url)
        #expect(firstResponse.value(forHTTPHeaderField: "Cache-Status") == "Suite; fwd=uri-miss")
        #expect(secondResponse.value(forHTTPHeaderField: "Cache-Status") == "Suite; hit")
        #expect(secondResponse.value(forHTTPHeaderField: "ETag") != nil)
        #expect(await nginx.requests(for: "/fresh/a.txt").count == 1)
        try await transport.shutdown()
    }

    @Test("a URLRequest's method, headers and body reach the origin; a POST is not cached")
    func urlRequestPartsAreKept() throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/items?b=2")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("{}".utf8)
        let converted = try CachedHTTPClient.Request(request, policy: .networkOnly, scope: "u1")
        #expect(converted.method == "POST" && converted.url == "https://api.example.com/items?b=2")
        #expect(converted.headers.contains(CacheHeader("content-type", "application/json")))
        #expect(converted.body == Array("{}".utf8) && converted.scope == "u1")
    }

    @Test("a URLRequest without an http(s) URL is refused with a hint")
    func badURLRequestsAreRefused() throws {
        for text in ["file:///etc/passwd", "mailto:someone@example.com"] {
            let request = URLRequest(url: URL(string: text)!)
            #expect {
                try CachedHTTPClient.Request(request)
            } throws: { error in
                (error as? CacheError)?.code == .invalidInput && (error as? CacheError)?.hint != nil
            }
        }
    }

    @Test("DataCache keeps Data as its bytes (not JSON) under a String or a URL key")
    func dataAndURLKeysRoundTrip() async throws {
        let cache = DataCache(store: try InMemoryCacheStore(byteLimit: 1 << 20))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])
        let url = try #require(URL(string: "https://cdn.example.com/u/42.png"))
        try await cache.set(png, for: url, lifetime: 60)
        try await cache.set(png, forKey: "avatar")
        #expect(await cache.data(for: url) == png)
        #expect(await cache.cachedData(forKey: "avatar") == png)
        #expect(await cache.data(forKey: "avatar") == [UInt8](png))  // the bytes, not a JSON string of base64
        #expect(try await cache.removeData(for: url))
        #expect(await cache.data(for: url) == nil)
    }
}
