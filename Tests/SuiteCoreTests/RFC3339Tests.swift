import SuiteTestSupport
import Testing

@testable import SuiteCore

/// RFC 3339 timestamps as the server writes them (`updateTime`, events): UTC, `Z`, the fraction as asked.
@Suite struct RFC3339Tests {
    @Test(
        "fixed instants: the epoch, before it, whole milliseconds, microseconds, a leap day, years past 9999 and before 1"
    )
    func fixedInstants() {
        let cases: [(Int64, RFC3339.Fraction, String)] = [
            (0, .automatic, "1970-01-01T00:00:00Z"),
            (0, .milliseconds, "1970-01-01T00:00:00.000Z"),
            (-1, .automatic, "1969-12-31T23:59:59.999999Z"),
            (-1_000, .milliseconds, "1969-12-31T23:59:59.999Z"),
            (1_700_000_000_123_000, .automatic, "2023-11-14T22:13:20.123Z"),
            (1_700_000_000_123_456, .automatic, "2023-11-14T22:13:20.123456Z"),
            (1_700_000_000_123_456, .milliseconds, "2023-11-14T22:13:20.123Z"),
            (951_782_400_000_000, .automatic, "2000-02-29T00:00:00Z"),
            (253_402_300_799_999_999, .automatic, "9999-12-31T23:59:59.999999Z"),
            (253_402_300_800_000_000, .automatic, "10000-01-01T00:00:00Z"),
            (-62_135_596_800_000_000, .automatic, "0001-01-01T00:00:00Z"),
            (-62_167_219_200_000_000, .automatic, "0000-01-01T00:00:00Z"),
            (-62_198_755_200_000_000, .automatic, "-0001-01-01T00:00:00Z"),
        ]
        for (micros, style, text) in cases {
            #expect(RFC3339.format(microseconds: micros, fraction: style) == text, "\(micros)")
        }
    }

    @Test("random instants from year 1 to 9999 read back as the same microseconds")
    func randomInstantsRoundTrip() {
        var generator = SplitMix64(seed: 3339)
        for _ in 0..<20_000 {
            let micros = Int64.random(in: -62_135_596_800_000_000..<253_402_300_800_000_000, using: &generator)
            let text = RFC3339.format(microseconds: micros)
            #expect(RFC3339.parse(text) == micros, "\(micros) → \(text)")
            #expect(text.utf8.count == 20 || text.utf8.count == 24 || text.utf8.count == 27, "\(text)")
        }
    }
}
