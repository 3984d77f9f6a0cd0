import Cache
import Foundation
import SuiteCore
import SuiteHTTP

/// Cache-Control and the other freshness headers of a response, and URL normalisation for cache keys: line 1 a URL,
/// each further line a `name: value` header. The headers then come back from an origin (an in-process transport: the
/// origin is the outside input here) through a `CachedHTTPClient`, twice, so storing and serving run on them too.
enum CacheHTTPHarness {
    static let responseTime = Date(timeIntervalSince1970: 1_700_000_000)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let lines = FuzzInput.text(bytes).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let first = lines.first else { return }
        let headers = lines.dropFirst().map { line -> CacheHeader in
            guard let colon = line.firstIndex(of: ":") else { return CacheHeader("cache-control", line) }
            return CacheHeader(String(line[..<colon]), String(line[line.index(after: colon)...]))
        }
        _ = HTTPFreshness(headers: headers, responseTime: responseTime)
        _ = HTTPFreshness(headers: headers, responseTime: responseTime, shared: true)
        _ = CacheControl(headers.map(\.value))
        let transient = Set(lines.dropFirst().prefix(2))
        if let url = try? NormalizedURL(first, removing: transient) {
            guard let again = try? NormalizedURL(url.text, removing: transient), again == url else {
                FuzzInput.fail("normalising \(first) twice changes it: \(url.text)")
            }
            _ = CacheKey(url: url)
            _ = CacheKey(method: "GET", url: url, scope: lines.count > 1 ? lines[1] : nil)
        }
        _ = CacheKey.prefix(urlPrefix: first)
        throughClient(headers)
    }

    /// The headers as an origin's answer to two GETs through a cache.
    static func throughClient(_ headers: [CacheHeader]) {
        guard let store = try? InMemoryCacheStore(byteLimit: 1 << 20) else { FuzzInput.fail("no in-memory store") }
        let clock = ManualWallClock(responseTime)
        let origin = FuzzOrigin(headers: headers.map { HTTPHeader($0.name, $0.value) })
        for shared in [false, true] {
            let client = CachedHTTPClient(
                cache: DataCache(store: store, clock: clock), transport: origin, isShared: shared)
            Blocking.run {
                for _ in 0..<2 {
                    _ = try? await client.send(.init(url: "https://example.com/a?b=\(shared)"))
                    clock.advance(by: 5)
                }
            }
        }
    }
}

/// An origin answering every request with 200 and the harness's headers.
struct FuzzOrigin: HTTPTransport {
    let headers: [HTTPHeader]

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        HTTPTransportResponse(status: 200, headers: headers, body: Array("body".utf8))
    }
}
