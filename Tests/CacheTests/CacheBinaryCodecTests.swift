import SuiteTestSupport
import Testing

@testable import Cache

@Suite("Cache binary codec")
struct CacheBinaryCodecTests {
    @Test func metadataRoundTrips() {
        let samples = [
            CacheMetadata(),
            CacheMetadata(storedAt: -5, freshUntil: .max, expiresAt: .min, tags: ["", "ü"], status: -1),
            CacheMetadata(
                storedAt: 1_700_000_000_000, tags: ["a", "b"], status: 200,
                headers: [CacheHeader("Content-Type", "text/html"), CacheHeader("x-empty", "")]),
        ]
        for metadata in samples {
            #expect(CacheBinaryCodec.decode(CacheBinaryCodec.encode(metadata)) == metadata)
        }
    }

    /// Truncated and random bytes decode to `nil` or to something, never trap.
    @Test func malformedBytesDoNotTrap() {
        let encoded = CacheBinaryCodec.encode(
            CacheMetadata(storedAt: 9, expiresAt: 10, tags: ["tag"], headers: [CacheHeader("a", "b")]))
        for length in 0..<encoded.count {
            #expect(CacheBinaryCodec.decode(encoded.prefix(length)) == nil)
        }
        var random = SeededGenerator(seed: 3)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            _ = CacheBinaryCodec.decode([1] + bytes)
            _ = ProtectedCacheCodec.decodeEntry([1] + bytes)
            _ = ProtectedCacheCodec.decodeSummary([1] + bytes)
        }
    }
}
