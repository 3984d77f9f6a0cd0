import Foundation
import SuiteCore

extension AnalyticsRecord {
    /// The record as one line of JSON (no newline): sorted keys, the timestamp in RFC 3339 with microseconds.
    ///
    /// `{"anonymousID":"…","context":{…},"id":"…","name":"…","parameters":{…},"sampleRate":1,"sessionID":"…",
    /// "timestamp":"…","traits":{…},"userID":"…"}` (`userID` and `anonymousID` only when set).
    package func jsonLine() throws -> String {
        let data = try Self.lineEncoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }

    private static let lineEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
            try container.encode(RFC3339.format(microseconds: micros))
        }
        return encoder
    }()
}
