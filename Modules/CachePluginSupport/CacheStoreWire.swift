@_spi(Engine) import Cache
import SuitePluginKit

/// The binary payloads of the `cache` engine kind: how ``CacheStoreRequest``s and ``CacheStoreResponse``s cross the C
/// plugin ABI. Hand-written, no Foundation, one pass each way; the layout is documented in this folder's README.md
/// for plugins written in C.
///
/// Decoding never trusts its input: truncated messages, bad tags, forged counts and trailing bytes are refused with
/// `CacheError/Code/storage` naming the operation, never a trap.
public enum CacheStoreWire {
    // MARK: - Requests

    /// Encodes the payload of `request` (its operation name, ``CacheStoreRequest/operation``, is sent beside it).
    public static func encode(_ request: CacheStoreRequest) -> [UInt8] {
        var w = WireWriter()
        switch request {
        case .get(let key, let now):
            w.string(key)
            w.i64(now)
        case .store(let entry):
            w.bytes.reserveCapacity(64 + entry.cost)
            w.string(entry.key)
            w.metadata(entry.metadata)
            w.blob(entry.value)
        case .remove(let key):
            w.string(key)
        case .removePrefix(let prefix):
            w.string(prefix)
        case .removeTag(let tag):
            w.string(tag)
        case .removeExpired(let now):
            w.i64(now)
        case .summaries(let after, let limit):
            w.optionalString(after)
            w.i64(Int64(limit))
        case .removeAll, .statistics, .close:
            break
        }
        return w.bytes
    }

    /// Decodes the payload of a request sent as `operation`.
    /// - Throws: `CacheError` `.storage` when the bytes are not a well-formed request of that operation.
    public static func decodeRequest(_ operation: CacheStoreOperation, from bytes: [UInt8]) throws -> CacheStoreRequest
    {
        try bytes.withUnsafeBytes { try decodeRequest(operation, from: $0) }
    }

    /// Decodes the payload of a request sent as `operation`, reading `bytes` in place.
    public static func decodeRequest(_ operation: CacheStoreOperation, from bytes: UnsafeRawBufferPointer) throws
        -> CacheStoreRequest
    {
        do {
            var r = WireReader(bytes)
            let request: CacheStoreRequest
            switch operation {
            case .get:
                let key = try r.string()
                request = .get(key: key, now: try r.i64())
            case .store:
                let key = try r.string()
                let metadata = try r.metadata()
                request = .store(CacheEntry(key: key, value: try r.blob(), metadata: metadata))
            case .remove:
                request = .remove(key: try r.string())
            case .removePrefix:
                request = .removePrefix(try r.string())
            case .removeTag:
                request = .removeTag(try r.string())
            case .removeExpired:
                request = .removeExpired(now: try r.i64())
            case .removeAll:
                request = .removeAll
            case .summaries:
                let after = try r.optionalString()
                request = .summaries(after: after, limit: Int(truncatingIfNeeded: try r.i64()))
            case .statistics:
                request = .statistics
            case .close:
                request = .close
            }
            try r.finish()
            return request
        } catch let error as WireFormatError {
            throw malformed(error, operation, "request")
        }
    }

    // MARK: - Responses

    /// The response tags (the first byte of every response).
    enum Tag: UInt8 {
        case failure = 0, miss, hit, stored, removed, count, summaries, statistics, done
    }

    /// Encodes `response`.
    public static func encode(_ response: CacheStoreResponse) -> [UInt8] {
        var w = WireWriter()
        switch response {
        case .failure(let error):
            w.u8(Tag.failure.rawValue)
            w.failure(CacheEngineKind.failure(for: error))
        case .entry(nil):
            w.u8(Tag.miss.rawValue)
        case .entry(let entry?):
            // The key is the request's: a hit carries only what the host does not know.
            w.bytes.reserveCapacity(64 + entry.cost)
            w.u8(Tag.hit.rawValue)
            w.metadata(entry.metadata)
            w.blob(entry.value)
        case .stored(let outcome):
            w.u8(Tag.stored.rawValue)
            w.summaries(outcome.evicted)
        case .removed(let removed):
            w.u8(Tag.removed.rawValue)
            w.bool(removed)
        case .count(let count):
            w.u8(Tag.count.rawValue)
            w.i64(Int64(count))
        case .summaries(let summaries):
            w.u8(Tag.summaries.rawValue)
            w.summaries(summaries)
        case .statistics(let statistics):
            w.u8(Tag.statistics.rawValue)
            w.string(statistics.engine)
            w.i64(Int64(statistics.entries))
            w.i64(Int64(statistics.bytes))
            w.optionalInt(statistics.byteLimit)
            w.optionalInt(statistics.countLimit)
        case .done:
            w.u8(Tag.done.rawValue)
        }
        return w.bytes
    }

    /// Decodes the response to `request`, checking that it has the shape the request's operation returns (or is a
    /// failure); a hit becomes an entry under the request's key.
    /// - Throws: `CacheError` `.storage` when the bytes are malformed or do not answer the operation.
    public static func decodeResponse(to request: CacheStoreRequest, from bytes: UnsafeRawBufferPointer) throws
        -> CacheStoreResponse
    {
        let operation = request.operation
        do {
            var r = WireReader(bytes)
            let raw = try r.u8()
            guard let tag = Tag(rawValue: raw) else { throw r.malformed("unknown response tag \(raw)") }
            guard tag == .failure || expectedTags(operation).contains(tag) else {
                throw r.malformed("a \(tag) response does not answer '\(operation.rawValue)'")
            }
            let response: CacheStoreResponse
            switch tag {
            case .failure:
                response = .failure(CacheEngineKind.cacheError(for: try r.failure()))
            case .miss:
                response = .entry(nil)
            case .hit:
                let key: String
                if case .get(let requested, _) = request { key = requested } else { key = "" }
                let metadata = try r.metadata()
                response = .entry(CacheEntry(key: key, value: try r.blob(), metadata: metadata))
            case .stored:
                response = .stored(CacheStoreOutcome(evicted: try r.summaries()))
            case .removed:
                response = .removed(try r.bool())
            case .count:
                response = .count(Int(truncatingIfNeeded: try r.i64()))
            case .summaries:
                response = .summaries(try r.summaries())
            case .statistics:
                let engine = try r.string()
                let entries = Int(truncatingIfNeeded: try r.i64())
                let bytes = Int(truncatingIfNeeded: try r.i64())
                let byteLimit = try r.optionalInt()
                response = .statistics(
                    CacheStoreStatistics(
                        engine: engine, entries: entries, bytes: bytes, byteLimit: byteLimit,
                        countLimit: try r.optionalInt()))
            case .done:
                response = .done
            }
            try r.finish()
            return response
        } catch let error as WireFormatError {
            throw malformed(error, operation, "response")
        }
    }

    /// Decodes the response to `request`; see ``decodeResponse(to:from:)-(_,UnsafeRawBufferPointer)``.
    public static func decodeResponse(to request: CacheStoreRequest, from bytes: [UInt8]) throws -> CacheStoreResponse {
        try bytes.withUnsafeBytes { try decodeResponse(to: request, from: $0) }
    }

    static func expectedTags(_ operation: CacheStoreOperation) -> [Tag] {
        switch operation {
        case .get: [.miss, .hit]
        case .store: [.stored]
        case .remove: [.removed]
        case .removePrefix, .removeTag, .removeExpired, .removeAll: [.count]
        case .summaries: [.summaries]
        case .statistics: [.statistics]
        case .close: [.done]
        }
    }

    private static func malformed(_ error: WireFormatError, _ operation: CacheStoreOperation, _ direction: StaticString)
        -> CacheError
    {
        CacheError(
            .storage, "malformed cache-engine \(operation.rawValue) \(direction): \(error)",
            hint:
                "the plugin and the host must be built from the same Suite version (see CachePluginSupport/README.md)",
            underlying: error)
    }
}
