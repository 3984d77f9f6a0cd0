public import Foundation
import SuiteCore

/// A calendar date without a time or a zone, `yyyy-MM-dd`: the day a piece of work belongs to.
///
/// A day belongs to the date it *started* on, in the time zone it was recorded in (``WorkDay/timeZone``), so a day's
/// totals never move with the zone of whoever looks at them. Arithmetic is on the proleptic Gregorian calendar and
/// needs no zone.
///
/// ```swift
/// let day = try WorkDate("2026-11-24")
/// day.adding(days: 7)          // 2026-12-01
/// day.weekday                  // 3 (Tuesday; 1 is Sunday, as in Foundation's Calendar)
/// ```
public struct WorkDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year, e.g. 2026.
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, 1–31.
    public let day: Int

    /// Creates a date; throws ``WorkError/Code/invalidInput`` for a day the month does not have.
    public init(year: Int, month: Int, day: Int) throws {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...WorkDate.daysIn(year: year, month: month)).contains(day)
        else {
            throw WorkError(
                .invalidInput, "\(year)-\(month)-\(day) is not a date",
                hint: "write dates as YYYY-MM-DD, e.g. 2026-11-24")
        }
        self.year = year
        self.month = month
        self.day = day
    }

    private init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `yyyy-MM-dd`.
    public init(_ text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else {
            throw WorkError(
                .invalidInput, "'\(text)' is not a date", hint: "write dates as YYYY-MM-DD, e.g. 2026-11-24")
        }
        try self.init(year: year, month: month, day: day)
    }

    /// The date `instant` falls on in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let local = Int64((instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: instant))).rounded(.down))
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        self = WorkDate(daysSinceEpoch: Int(days))
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let (year, month, day) = RFC3339.civilFromDays(Int64(days))
        self.init(unchecked: Int(year), Int(month), Int(day))
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int {
        Int(RFC3339.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day)))
    }

    /// The date `days` later (earlier when negative).
    public func adding(days: Int) -> WorkDate { WorkDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// Whole days from `self` to `other`.
    public func days(to other: WorkDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// The weekday, 1 (Sunday) to 7 (Saturday), as Foundation's `Calendar` numbers them.
    public var weekday: Int { ((daysSinceEpoch % 7 + 7) % 7 + 4) % 7 + 1 }

    /// The month this date is in.
    public var workMonth: WorkMonth { WorkMonth(unchecked: year, month) }

    /// The instant this date starts in `zone` (local midnight; the first instant of the day where a daylight-saving
    /// change skips midnight).
    public func start(in zone: TimeZone) -> Date {
        let noonUTC = Double(daysSinceEpoch) * 86_400 + 43_200
        let noon = Date(
            timeIntervalSince1970: noonUTC - Double(zone.secondsFromGMT(for: Date(timeIntervalSince1970: noonUTC))))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.startOfDay(for: noon)
    }

    /// The length of this date in `zone`, in seconds: 86,400, or 82,800 / 90,000 on daylight-saving changes.
    public func length(in zone: TimeZone) -> TimeInterval {
        adding(days: 1).start(in: zone).timeIntervalSince(start(in: zone))
    }

    public var description: String {
        // Built by hand: String(format:) costs microseconds on Linux, and reports format every date.
        WorkDate.padded(year, 4) + "-" + WorkDate.padded(month, 2) + "-" + WorkDate.padded(day, 2)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    public static func < (a: WorkDate, b: WorkDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a YYYY-MM-DD date"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func daysIn(year: Int, month: Int) -> Int {
        Int(RFC3339.daysInMonth(year: Int64(year), month: Int64(month)))
    }
}

/// A calendar month, `yyyy-MM`: the key of the month cache and of the team view.
public struct WorkMonth: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The year.
    public let year: Int
    /// The month, 1–12.
    public let month: Int

    init(unchecked year: Int, _ month: Int) {
        self.year = year
        self.month = month
    }

    /// Parses `yyyy-MM`.
    public init(_ text: String) throws {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]),
            let month = Int(parts[1]), (1...9999).contains(year), (1...12).contains(month)
        else {
            throw WorkError(.invalidInput, "'\(text)' is not a month", hint: "write months as YYYY-MM, e.g. 2026-11")
        }
        self.init(unchecked: year, month)
    }

    /// The first day.
    public var first: WorkDate { WorkDate(daysSinceEpoch: firstDays) }
    /// The last day.
    public var last: WorkDate { first.adding(days: WorkDate.daysIn(year: year, month: month) - 1) }
    /// Every day, in order.
    public var days: [WorkDate] { (0..<WorkDate.daysIn(year: year, month: month)).map { first.adding(days: $0) } }
    /// The month after.
    public var next: WorkMonth {
        month == 12 ? WorkMonth(unchecked: year + 1, 1) : WorkMonth(unchecked: year, month + 1)
    }
    /// The month before.
    public var previous: WorkMonth {
        month == 1 ? WorkMonth(unchecked: year - 1, 12) : WorkMonth(unchecked: year, month - 1)
    }

    private var firstDays: Int { Int(RFC3339.daysFromCivil(year: Int64(year), month: Int64(month), day: 1)) }

    public var description: String { WorkDate.padded(year, 4) + "-" + WorkDate.padded(month, 2) }

    public static func < (a: WorkMonth, b: WorkMonth) -> Bool { (a.year, a.month) < (b.year, b.month) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(text) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a YYYY-MM month"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
