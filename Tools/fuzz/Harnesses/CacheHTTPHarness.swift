import Cache
import Foundation

/// Cache-Control and the other freshness headers of a response, and URL normalisation for cache keys: line 1 a URL,
/// each further line a `name: value` header.
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
    }
}
