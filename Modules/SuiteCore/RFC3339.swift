/// Parsing and formatting of RFC 3339 timestamps (`2024-05-01T12:30:00.250Z`) with microsecond precision, without
/// Foundation's date formatters (which cost microseconds per call).
public enum RFC3339 {
    static let microsecondsPerDay: Int64 = 86_400_000_000

    /// How many fraction digits ``format(microseconds:fraction:)`` writes.
    public enum Fraction: Sendable {
        /// None when the fraction is zero, 3 digits for whole milliseconds, else 6.
        case automatic
        /// Always 3 digits (milliseconds, truncated).
        case milliseconds
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; fractions beyond microseconds are truncated.
    /// Returns microseconds since the Unix epoch, or `nil` if the text is not a valid RFC 3339 date-time with a year
    /// from 0001 to 9999.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// Parses RFC 3339 UTF-8 bytes; see ``parse(_:)-(String)``. Returns microseconds since the Unix epoch.
    public static func parse(_ s: UnsafeRawBufferPointer) -> Int64? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= s.count else { return nil }
            var v: Int64 = 0
            for k in 0..<n {
                let c = s[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ chars: UInt8...) -> Bool {
            guard i < s.count, chars.contains(s[i]) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
            expect(0x54, 0x74, 0x20), let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A),
            let second = digits(2)
        else { return nil }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var micros: Int64 = 0
        if i < s.count && s[i] == 0x2E {
            i += 1
            var count = 0
            while i < s.count && s[i] >= 0x30 && s[i] <= 0x39 {
                if count < 6 { micros = micros * 10 + Int64(s[i] - 0x30) }
                count += 1
                i += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 6) { micros *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if expect(0x5A, 0x7A) {
            offsetMinutes = 0
        } else if i < s.count && (s[i] == 0x2B || s[i] == 0x2D) {
            let negative = s[i] == 0x2D
            i += 1
            guard let oh = digits(2), expect(0x3A), let om = digits(2), oh <= 23, om <= 59 else { return nil }
            offsetMinutes = (oh * 60 + om) * (negative ? -1 : 1)
        } else {
            return nil
        }
        guard i == s.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1_000_000 + micros
    }

    /// Formats microseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff]Z` in UTC.
    public static func format(microseconds micros: Int64, fraction style: Fraction = .automatic) -> String {
        var days = micros / microsecondsPerDay
        var rest = micros % microsecondsPerDay
        if rest < 0 {
            rest += microsecondsPerDay
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        let secondsOfDay = rest / 1_000_000
        let fraction = rest % 1_000_000
        // Written as ASCII into one buffer, then one String: a String per field was ~1 % of a server's GET.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            var count = 0
            func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            // `value` (≥ 0) in decimal, with leading zeros up to `width` digits.
            func pad(_ value: Int64, _ width: Int) {
                var digits = 1
                var rest = value / 10
                while rest > 0 {
                    digits += 1
                    rest /= 10
                }
                var remaining = value
                let length = max(digits, width)
                for index in stride(from: count + length - 1, through: count, by: -1) {
                    buffer[index] = 0x30 + UInt8(truncatingIfNeeded: remaining % 10)
                    remaining /= 10
                }
                count += length
            }
            if year < 0 { put(0x2D) }
            pad(abs(year), 4)
            put(0x2D)
            pad(month, 2)
            put(0x2D)
            pad(day, 2)
            put(0x54)
            pad(secondsOfDay / 3600, 2)
            put(0x3A)
            pad(secondsOfDay / 60 % 60, 2)
            put(0x3A)
            pad(secondsOfDay % 60, 2)
            switch style {
            case .milliseconds:
                put(0x2E)
                pad(fraction / 1000, 3)
            case .automatic where fraction != 0:
                put(0x2E)
                if fraction % 1000 == 0 { pad(fraction / 1000, 3) } else { pad(fraction, 6) }
            case .automatic:
                break
            }
            put(0x5A)
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    package static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    package static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    package static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    package static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
