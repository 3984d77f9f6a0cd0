import Foundation
import SuiteCore
import Synchronization

extension CachedHTTPClient {
    /// What a fetch from the origin gave.
    struct Fetched: Sendable {
        var response: Response
    }

    /// Fetches from the origin (conditionally when `stored` has validators) and stores what may be stored. Concurrent
    /// identical requests share one upstream request.
    func fetch(_ request: Request, key: CacheKey, stored: CacheEntry?, rules: [CacheRules.Rule]) async throws -> Fetched
    {
        let identity =
            key.primary + "\n"
            + request.headers.map { "\($0.name): \($0.value)" }.sorted().joined(separator: "\n")
        let (task, created) = inFlight.withLock { tasks -> (Task<Fetched, any Error>, Bool) in
            if let task = tasks[identity] { return (task, false) }
            let task = Task { try await self.fetchOnce(request, key: key, stored: stored, rules: rules) }
            tasks[identity] = task
            return (task, true)
        }
        defer {
            if created { inFlight.withLock { _ = $0.removeValue(forKey: identity) } }
        }
        return try await task.value
    }

    private static let notMerged: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "age", "cache-status",
    ]
    private static let notStored: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", "set-cookie", "cache-status",
    ]

    private func fetchOnce(_ request: Request, key: CacheKey, stored: CacheEntry?, rules: [CacheRules.Rule])
        async throws -> Fetched
    {
        var headers = request.headers
        if let stored {
            if let etag = stored.metadata.header("etag") { headers.append(CacheHeader("if-none-match", etag)) }
            if let modified = stored.metadata.header("last-modified") {
                headers.append(CacheHeader("if-modified-since", modified))
            }
        }
        let answer = try await upstream(
            OriginRequest(method: request.method, url: request.url, headers: headers, body: request.body))
        let now = cache.now
        if answer.status == 304, let stored {
            // Not modified: the stored body with the stored headers updated by the 304's.
            var merged = stored.metadata.headers
            let updates = answer.headers.filter { !Self.notMerged.contains($0.name) }
            let names = Set(updates.map(\.name))
            merged.removeAll { names.contains($0.name) || $0.name == "age" }
            merged += updates
            if let age = answer.headers.first(where: { $0.name == "age" }) { merged.append(age) }
            let refreshed = OriginResponse(
                status: stored.metadata.status ?? 200, headers: merged, body: stored.value)
            var entry = stored
            if let plan = plan(request, refreshed, rules: rules, now: now) {
                entry = CacheEntry(key: stored.key, value: stored.value, metadata: plan.metadata)
                try? await cache.store(entry, sensitive: request.sensitive)
            }
            cache.recordHit(entry)
            return Fetched(response: response(entry, now: now, status: .revalidated))
        }
        cache.recordMiss(key.primary)
        if let plan = plan(request, answer, rules: rules, now: now) {
            let storedKey =
                plan.vary.isEmpty ? key.primary : key.varying(by: plan.vary, requestHeaders: request.headers)
            do {
                if plan.vary.isEmpty {
                    try await cache.store(
                        CacheEntry(key: storedKey, value: answer.body, metadata: plan.metadata),
                        sensitive: request.sensitive)
                } else {
                    var index = plan.metadata
                    index.headers = []
                    index.status = nil
                    let names = Array(plan.vary.joined(separator: ",").utf8)
                    try await cache.store(
                        CacheEntry(key: key.varyIndex, value: names, metadata: index), sensitive: request.sensitive)
                    try await cache.store(
                        CacheEntry(key: storedKey, value: answer.body, metadata: plan.metadata),
                        sensitive: request.sensitive)
                    _ = try await cache.removeValue(forKey: key.primary, sensitive: request.sensitive)
                }
            } catch {
                // A response that cannot be stored (too large, a store failure) is still the caller's answer.
                cache.report(error, key: storedKey)
            }
        }
        return Fetched(
            response: Response(
                status: answer.status,
                headers: answer.headers + [CacheHeader("cache-status", CacheStatus.miss.headerValue)],
                body: answer.body, cacheStatus: .miss, age: 0))
    }

    /// How to store `answer`, or `nil` when it must not (or need not) be stored.
    private func plan(_ request: Request, _ answer: OriginResponse, rules: [CacheRules.Rule], now: Int64)
        -> (metadata: CacheMetadata, vary: [String])?
    {
        let control = CacheControl(answer.headers.filter { $0.name == "cache-control" }.map(\.value))
        // A 304 to the caller's own conditional request, or a partial response, is not a response to keep.
        if control.noStore || answer.status == 304 || answer.status == 206 { return nil }
        if isShared {
            if control.isPrivate, request.scope == nil { return nil }
            if request.headers.contains(where: { $0.name == "authorization" }), request.scope == nil,
                !(control.isPublic || control.sharedMaxAge != nil || control.mustRevalidate)
            {
                return nil
            }
        }
        let vary = answer.headers.filter { $0.name == "vary" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: " \t").lowercased() }
            .filter { !$0.isEmpty }
        if vary.contains("*") { return nil }
        let freshness = HTTPFreshness(headers: answer.headers, responseTime: cache.clock.now, shared: isShared)
        var lifetime = freshness.lifetime
        var explicit = freshness.isExplicit
        if let rule = rules.first(where: { $0.lifetime != nil }), let seconds = rule.lifetime,
            rule.overridesHTTP || !freshness.isExplicit
        {
            lifetime = TimeInterval(seconds)
            explicit = true
        }
        if control.noCache { lifetime = 0 }
        let cacheableByDefault: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
        guard cacheableByDefault.contains(answer.status) || explicit else { return nil }
        let hasValidators = answer.headers.contains { $0.name == "etag" || $0.name == "last-modified" }
        let freshUntil = now + Int64(max(0, lifetime - freshness.initialAge) * 1000)
        var window = TimeInterval(max(control.staleWhileRevalidate ?? 0, control.staleIfError ?? 0))
        switch request.policy {
        case .staleWhileRevalidate(let seconds), .staleIfError(let seconds): window = max(window, TimeInterval(seconds))
        default: break
        }
        let expiresAt = freshUntil + Int64(max(window, hasValidators ? staleRetention : 0) * 1000)
        guard expiresAt > now else { return nil }
        var headers = answer.headers.filter { !Self.notStored.contains($0.name) && $0.name != "age" }
        if freshness.initialAge > 0 { headers.append(CacheHeader("age", "\(Int(freshness.initialAge))")) }
        let metadata = CacheMetadata(
            storedAt: now, freshUntil: freshUntil, expiresAt: expiresAt, tags: rules.flatMap(\.tags),
            status: answer.status, headers: headers)
        return (metadata, vary)
    }
}
