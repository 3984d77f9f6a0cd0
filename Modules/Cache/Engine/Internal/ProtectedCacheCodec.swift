/// The plaintexts a ``ProtectedCacheStore`` seals: a version byte, the real key, then for an entry the metadata and the
/// value (the rest), for a summary the value's size and the metadata.
enum ProtectedCacheCodec {
    static func encode(_ entry: CacheEntry) -> [UInt8] {
        var bytes: [UInt8] = [1]
        bytes.reserveCapacity(entry.cost + 32)
        CacheBinaryCodec.appendString(entry.key, to: &bytes)
        CacheBinaryCodec.append(entry.metadata, to: &bytes)
        bytes.append(contentsOf: entry.value)
        return bytes
    }

    static func decodeEntry(_ bytes: [UInt8]) -> CacheEntry? {
        var reader = CacheBinaryCodec.ByteReader(bytes)
        guard reader.byte() == 1, let key = reader.string(), let metadata = reader.metadata() else { return nil }
        return CacheEntry(key: key, value: Array(reader.remaining), metadata: metadata)
    }

    static func encode(_ summary: CacheEntrySummary) -> [UInt8] {
        var bytes: [UInt8] = [1]
        CacheBinaryCodec.appendString(summary.key, to: &bytes)
        CacheBinaryCodec.appendInteger(Int64(summary.bytes), to: &bytes)
        CacheBinaryCodec.append(summary.metadata, to: &bytes)
        return bytes
    }

    static func decodeSummary(_ bytes: [UInt8]) -> CacheEntrySummary? {
        var reader = CacheBinaryCodec.ByteReader(bytes)
        guard reader.byte() == 1, let key = reader.string(), let size = reader.integer(),
            let bytes = Int(exactly: size),
            let metadata = reader.metadata()
        else { return nil }
        return CacheEntrySummary(key: key, bytes: bytes, metadata: metadata)
    }
}
