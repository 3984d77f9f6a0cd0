// swift-format-ignore-file
// Modules/CacheURLSession/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
// Compiled, not called: it reaches api.example.com (CacheTests run the same calls against nginx).
import Cache
import CacheURLSession
import Foundation  // and FoundationNetworking on Linux, for URLRequest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func cacheURLSessionReadme() async throws {
    let client = CachedHTTPClient(cache: DataCache(store: try InMemoryCacheStore(byteLimit: 8 << 20)))
    var request = URLRequest(url: URL(string: "https://api.example.com/users/42")!)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let (data, response) = try await client.data(for: request)
    let fromCache = response.value(forHTTPHeaderField: "Cache-Status")   // "Suite; hit" on a hit
    _ = (data, fromCache)
}
