import Cache
import CachePluginSupport
import SuitePluginKit
import Testing

@Suite("The cache kind's wire format")
struct CacheStoreWireTests {
    static let metadata = CacheMetadata(
        storedAt: 1, freshUntil: 2, expiresAt: 3, tags: ["t1", "t2"], status: 304,
        headers: [CacheHeader("etag", "\"v1\"")])

    static let requests: [CacheStoreRequest] = [
        .get(key: "k", now: 42), .store(CacheEntry(key: "k", value: [9, 8], metadata: metadata)),
        .store(CacheEntry(key: "", value: [])), .remove(key: "k"), .removePrefix("p/"), .removeTag("t"),
        .removeExpired(now: -1), .removeAll, .summaries(after: nil, limit: 5), .summaries(after: "a", limit: 0),
        .statistics, .close,
    ]

    @Test("every request decodes to itself", arguments: requests)
    func requestRoundTrip(_ request: CacheStoreRequest) throws {
        let bytes = CacheStoreWire.encode(request)
        #expect(try CacheStoreWire.decodeRequest(request.operation, from: bytes) == request)
    }

    @Test("a truncated or padded request is refused as a storage error, never a trap", arguments: requests)
    func malformedRequest(_ request: CacheStoreRequest) {
        let bytes = CacheStoreWire.encode(request)
        for broken in [Array(bytes.dropLast()), bytes + [0]] where broken != bytes && !(bytes.isEmpty && broken.isEmpty)
        {
            #expect(throws: CacheError.self) { try CacheStoreWire.decodeRequest(request.operation, from: broken) }
        }
    }

    @Test("a hit comes back under the requested key; a miss is nil")
    func hitAndMiss() throws {
        let entry = CacheEntry(key: "users/1", value: [1, 2, 3], metadata: Self.metadata)
        let request = CacheStoreRequest.get(key: "users/1", now: 0)
        guard
            case .entry(let hit) = try CacheStoreWire.decodeResponse(
                to: request, from: CacheStoreWire.encode(.entry(entry)))
        else { Issue.record("not an entry"); return }
        #expect(hit == entry)
        guard
            case .entry(nil) = try CacheStoreWire.decodeResponse(to: request, from: CacheStoreWire.encode(.entry(nil)))
        else { Issue.record("not a miss"); return }
    }

    @Test("a response of another operation's shape is refused")
    func mismatchedResponse() {
        #expect(throws: CacheError.self) {
            try CacheStoreWire.decodeResponse(to: .removeAll, from: CacheStoreWire.encode(.removed(true)))
        }
        #expect(throws: CacheError.self) { try CacheStoreWire.decodeResponse(to: .statistics, from: [99]) }
        #expect(throws: CacheError.self) { try CacheStoreWire.decodeResponse(to: .statistics, from: []) }
    }

    @Test("a store's CacheError crosses with its code, message and hint")
    func failureKeepsCode() async throws {
        let store = WireLoopbackStore(serving: DictionaryCacheStore())
        let error = await #expect(throws: CacheError.self) {
            try await store.store(CacheEntry(key: "refused", value: [1]))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message == "refused on purpose")
        #expect(error?.hint == "store less")
    }

    @Test("an unknown operation is unsupported, a malformed request invalid")
    func handlerStatuses() async throws {
        let handler = PluginRequestHandler<CacheEngineKind>.cache(serving: DictionaryCacheStore())
        let unsupported = await #expect(throws: PluginOperationError.self) {
            try await handler.handle(operation: "fly", request: [])
        }
        #expect(unsupported?.status == 2)
        let invalid = await #expect(throws: PluginOperationError.self) {
            try await handler.handle(operation: "get", request: [1])
        }
        #expect(invalid?.status == 3)
    }

    @Test("a Swift store passes the contract checks through the wire and the plugin-side handler")
    func contractThroughTheWire() async throws {
        try await CacheStoreCheck.runAll { WireLoopbackStore(serving: DictionaryCacheStore()) }
    }
}
