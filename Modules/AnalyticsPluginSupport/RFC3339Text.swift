import Foundation
import SuiteCore

/// Dates as RFC 3339 text with microseconds (SuiteCore's formatter and parser).
enum RFC3339Text {
    static func format(_ date: Date) -> String {
        RFC3339.format(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded()))
    }

    static func parse(_ text: String) -> Date? {
        RFC3339.parse(text).map { Date(timeIntervalSince1970: Double($0) / 1_000_000) }
    }
}
