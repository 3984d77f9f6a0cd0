public import Foundation

/// Times as people type them: `HH:MM[:SS]` on a given date in a zone, or ISO 8601 with or without an offset
/// (`2026-11-24T08:30`, `2026-11-24T08:30:00+01:00`, `2026-11-24T07:30Z`).
public enum WorkTime {
    /// Parses `text`; `HH:MM` means that time on `date` in `zone`, an ISO 8601 time without an offset is read in
    /// `zone`. A local time that does not exist (skipped by a daylight-saving change) is refused.
    public static func parse(_ text: String, on date: WorkDate, in zone: TimeZone) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let clock = clockTime(trimmed) {
            return try local(date, clock, zone, text)
        }
        guard let t = trimmed.firstIndex(where: { $0 == "T" || $0 == " " }) else { throw invalid(text) }
        let day = try WorkDate(String(trimmed[..<t]))
        var rest = String(trimmed[trimmed.index(after: t)...])
        var offset: Int?
        if rest.hasSuffix("Z") || rest.hasSuffix("z") {
            offset = 0
            rest.removeLast()
        } else if let sign = rest.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zoneText = rest[rest.index(after: sign)...].replacingOccurrences(of: ":", with: "")
            guard zoneText.count == 4 || zoneText.count == 2, let value = Int(zoneText) else { throw invalid(text) }
            let minutes = zoneText.count == 4 ? (value / 100) * 60 + value % 100 : value * 60
            offset = (rest[sign] == "-" ? -1 : 1) * minutes * 60
            rest = String(rest[..<sign])
        }
        guard let clock = clockTime(rest) else { throw invalid(text) }
        if let offset {
            let seconds = Double(day.daysSinceEpoch) * 86_400 + Double(clock) - Double(offset)
            return Date(timeIntervalSince1970: seconds)
        }
        return try local(day, clock, zone, text)
    }

    /// `yyyy-MM-dd HH:MM` in `zone`, for tables.
    public static func format(_ date: Date, in zone: TimeZone, withDate: Bool = false) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))).rounded(.down))
        let seconds = ((local % 86_400) + 86_400) % 86_400
        let clock = String(format: "%02d:%02d", seconds / 3600, seconds % 3600 / 60)
        return withDate ? "\(WorkDate(date, in: zone)) \(clock)" : clock
    }

    /// ISO 8601 with the zone's offset, e.g. `2026-11-24T08:30:00+01:00`.
    public static func iso(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let local = Int((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        let seconds = ((local % 86_400) + 86_400) % 86_400
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return String(
            format: "%@T%02d:%02d:%02d%@%02d:%02d", WorkDate(date, in: zone).description, seconds / 3600,
            seconds % 3600 / 60, seconds % 60, sign, magnitude / 3600, magnitude % 3600 / 60)
    }

    /// `7h 30m` for a number of seconds (negative with a minus sign).
    public static func duration(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : ""
        let minutes = abs(seconds) / 60
        return minutes >= 60 ? "\(sign)\(minutes / 60)h \(String(format: "%02d", minutes % 60))m" : "\(sign)\(minutes)m"
    }

    private static func clockTime(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...23).contains(hours), (0...59).contains(minutes)
        else { return nil }
        var seconds = 0
        if parts.count == 3 {
            guard let value = Int(parts[2]), (0...59).contains(value) else { return nil }
            seconds = value
        }
        return hours * 3600 + minutes * 60 + seconds
    }

    private static func local(_ date: WorkDate, _ clock: Int, _ zone: TimeZone, _ text: String) throws -> Date {
        let wall = Double(date.daysSinceEpoch) * 86_400 + Double(clock)
        // Try the offsets in force around the wall time; keep one that maps back to the same wall time.
        let candidates = Set(
            [wall - 86_400, wall, wall + 86_400].map { zone.secondsFromGMT(for: Date(timeIntervalSince1970: $0)) })
        for offset in candidates.sorted(by: >) {
            let instant = Date(timeIntervalSince1970: wall - Double(offset))
            if zone.secondsFromGMT(for: instant) == offset { return instant }
        }
        throw WorkError(
            .invalidInput,
            "\(text) does not exist on \(date) in \(zone.identifier) (a daylight-saving change skips it)",
            hint: "give the time with an offset, e.g. \(date)T03:30+02:00")
    }

    private static func invalid(_ text: String) -> WorkError {
        WorkError(
            .invalidInput, "'\(text)' is not a time",
            hint: "write HH:MM (today, in your time zone) or ISO 8601, e.g. 2026-11-24T08:30 or 2026-11-24T08:30+01:00")
    }
}
