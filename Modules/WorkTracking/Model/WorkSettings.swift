public import Foundation

/// One user's settings: the zone days are recorded in, the first day of the week, planned hours per weekday.
///
/// Stored in the user's document `workInfo/{uid}` (field `settings`); a user without stored settings gets the
/// tracker's defaults.
public struct WorkSettings: Sendable, Hashable, Codable {
    /// The IANA zone new days are recorded in, e.g. `Europe/Berlin`.
    public var timeZone: String
    /// The first day of the week, 1 (Sunday) to 7 (Saturday); 2 (Monday) by default.
    public var firstWeekday: Int
    /// Planned hours per weekday, Sunday first (seven values); 8 on Monday–Friday by default.
    public var plannedHours: [Double]

    /// Creates settings, checking them.
    public init(
        timeZone: String = TimeZone.current.identifier, firstWeekday: Int = 2,
        plannedHours: [Double] = [0, 8, 8, 8, 8, 8, 0]
    ) throws {
        guard TimeZone(identifier: timeZone) != nil else {
            throw WorkError(
                .invalidInput, "'\(timeZone)' is not a time zone",
                hint: "use an IANA name such as Europe/Berlin, America/New_York or UTC")
        }
        guard (1...7).contains(firstWeekday) else {
            throw WorkError(.invalidInput, "the first weekday must be 1 (Sunday) to 7 (Saturday), not \(firstWeekday)")
        }
        guard plannedHours.count == 7, plannedHours.allSatisfy({ (0...24).contains($0) }) else {
            throw WorkError(
                .invalidInput, "planned hours need seven values from 0 to 24, Sunday first",
                hint: "e.g. [0, 8, 8, 8, 8, 8, 0]")
        }
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.plannedHours = plannedHours
    }

    private init(unchecked timeZone: String, firstWeekday: Int, plannedHours: [Double]) {
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.plannedHours = plannedHours
    }

    /// Monday first, 8 hours Monday to Friday, in `zone`.
    public static func standard(in zone: TimeZone = .current) -> WorkSettings {
        WorkSettings(unchecked: zone.identifier, firstWeekday: 2, plannedHours: [0, 8, 8, 8, 8, 8, 0])
    }

    /// The zone (UTC if the identifier is unknown to this machine).
    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .current }

    /// Planned seconds on `date`'s weekday.
    public func plannedSeconds(on date: WorkDate) -> Int {
        let hours = plannedHours.indices.contains(date.weekday - 1) ? plannedHours[date.weekday - 1] : 0
        return Int((hours * 3600).rounded())
    }

    /// The first date of the week that contains `date`.
    public func weekStart(containing date: WorkDate) -> WorkDate {
        date.adding(days: -((date.weekday - firstWeekday + 7) % 7))
    }

    /// Weekday names as people type them, Sunday first.
    public static let weekdayNames = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// The weekday number (1 Sunday … 7 Saturday) for a name or its first three letters.
    public static func weekday(named name: String) -> Int? {
        let lower = name.lowercased()
        guard lower.count >= 2 else { return nil }
        return weekdayNames.firstIndex { $0 == lower || $0.hasPrefix(lower) && lower.count >= 3 }.map { $0 + 1 }
    }
}
