@_spi(Engine) import Cache
import SuitePluginKit

// The cache kind's composite values, built on SuitePluginKit's wire primitives (see CacheStoreWire).

extension WireWriter {
    mutating func optionalI64(_ value: Int64?) {
        if let value {
            u8(1)
            i64(value)
        } else {
            u8(0)
        }
    }

    mutating func metadata(_ metadata: CacheMetadata) {
        i64(metadata.storedAt)
        optionalI64(metadata.freshUntil)
        optionalI64(metadata.expiresAt)
        count(metadata.tags.count)
        for tag in metadata.tags { string(tag) }
        optionalInt(metadata.status)
        count(metadata.headers.count)
        for header in metadata.headers {
            string(header.name)
            string(header.value)
        }
    }

    mutating func summary(_ summary: CacheEntrySummary) {
        string(summary.key)
        i64(Int64(summary.bytes))
        metadata(summary.metadata)
    }

    mutating func summaries(_ summaries: [CacheEntrySummary]) {
        count(summaries.count)
        for summary in summaries { self.summary(summary) }
    }
}

extension WireReader {
    mutating func optionalI64() throws -> Int64? {
        try present() ? try i64() : nil
    }

    mutating func metadata() throws -> CacheMetadata {
        let storedAt = try i64()
        let freshUntil = try optionalI64()
        let expiresAt = try optionalI64()
        let tagCount = try count(minimumSize: 4)
        var tags: [String] = []
        tags.reserveCapacity(tagCount)
        for _ in 0..<tagCount { tags.append(try string()) }
        let status = try optionalInt()
        let headerCount = try count(minimumSize: 8)
        var headers: [CacheHeader] = []
        headers.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            let name = try string()
            // Not CacheHeader.init: the name crossed as stored (lower-cased already) and must come back unchanged.
            var header = CacheHeader(name, try string())
            header.name = name
            headers.append(header)
        }
        return CacheMetadata(
            storedAt: storedAt, freshUntil: freshUntil, expiresAt: expiresAt, tags: tags, status: status,
            headers: headers)
    }

    mutating func summary() throws -> CacheEntrySummary {
        let key = try string()
        let bytes = Int(truncatingIfNeeded: try i64())
        return CacheEntrySummary(key: key, bytes: bytes, metadata: try metadata())
    }

    mutating func summaries() throws -> [CacheEntrySummary] {
        let n = try count(minimumSize: WireSize.summary)
        var result: [CacheEntrySummary] = []
        result.reserveCapacity(n)
        for _ in 0..<n { result.append(try summary()) }
        return result
    }
}

/// The smallest encoded sizes, used to bound forged counts.
enum WireSize {
    /// `i64` storedAt, two absent optionals, empty tags, absent status, empty headers.
    static let metadata = 8 + 1 + 1 + 4 + 1 + 4
    /// `string` key, `i64` bytes, metadata.
    static let summary = 4 + 8 + metadata
}
