import Foundation
import Testing

@testable import Cache

@Suite("Cache entries")
struct CacheEntryTests {
    @Test func anEntryIsExpiredFromItsExpiryOn() {
        let metadata = CacheMetadata(storedAt: 1_000, expiresAt: 2_000)
        #expect(!metadata.isExpired(at: 1_999))
        #expect(metadata.isExpired(at: 2_000))
        #expect(!CacheMetadata(storedAt: 1_000).isExpired(at: .max))
    }

    @Test func headersAreFoundInAnyCase() {
        let metadata = CacheMetadata(headers: [CacheHeader("ETag", "\"a\""), CacheHeader("Cache-Control", "max-age=5")])
        #expect(metadata.header("etag") == "\"a\"")
        #expect(metadata.header("CACHE-CONTROL") == "max-age=5")
        #expect(metadata.header("vary") == nil)
    }

    @Test func timesAreWholeMilliseconds() {
        #expect(CacheEntry.time(Date(timeIntervalSince1970: 1.2345)) == 1_234)
    }
}
