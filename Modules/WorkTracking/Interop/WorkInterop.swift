public import Foundation

/// Export formats of `suite work export`.
public enum WorkExportFormat: String, Sendable, CaseIterable {
    /// One row per day: date, status, start, end, worked, breaks, planned, overtime, notes, tags.
    case csv
    /// The day documents as JSON (every field, history included): the format `import --format json` reads back.
    case json
    /// Timewarrior's `timew export` format: one interval per stretch of work, breaks left as gaps.
    case timewarrior
}

/// Import formats of `suite work import`.
public enum WorkImportFormat: String, Sendable, CaseIterable {
    /// Timewarrior's `timew export` JSON.
    case timewarrior
    /// Watson's frames file (`~/.config/watson/frames`).
    case watson
    /// Suite's own JSON export.
    case json
}

/// One tracked interval from another tool.
public struct WorkImportedInterval: Sendable, Hashable {
    /// When it started.
    public var start: Date
    /// When it ended; nil while it runs.
    public var end: Date?
    /// Its tags (Watson's project first).
    public var tags: [String]
    /// Whether it is a break (tagged or named `break`) rather than work.
    public var isBreak: Bool

    /// Creates an interval.
    public init(start: Date, end: Date?, tags: [String], isBreak: Bool = false) {
        self.start = start
        self.end = end
        self.tags = tags
        self.isBreak = isBreak
    }
}

/// Reading and writing other tools' formats.
public enum WorkInterop {
    // MARK: Export

    /// Days as CSV, one row per day, times in each day's zone (ISO 8601 with offset), durations in seconds.
    public static func csv(_ days: [WorkDay], now: Date) -> String {
        var lines = [
            "date,status,start,end,worked_seconds,break_seconds,planned_seconds,overtime_seconds,time_zone,notes,tags"
        ]
        for day in days {
            let zone = day.zone
            let worked = Int(day.worked(at: now).rounded())
            let fields: [String] = [
                day.workDate.description, day.status.rawValue, day.actualStart.map { WorkTime.iso($0, in: zone) } ?? "",
                day.actualEnd.map { WorkTime.iso($0, in: zone) } ?? "", "\(worked)",
                "\(Int(day.breakTime(at: now).rounded()))", "\(day.plannedSeconds)", "\(worked - day.plannedSeconds)",
                day.timeZone, day.notes.joined(separator: "\n"), day.tags.joined(separator: " "),
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Days as JSON (an array of day documents, dates ISO 8601).
    public static func json(_ days: [WorkDay]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(days)
    }

    /// Days in `timew export` format: each stretch of work is an interval tagged with the day's tags (or `work`);
    /// breaks are the gaps between them. A running day's last interval has no end.
    public static func timewarrior(_ days: [WorkDay], now: Date) throws -> Data {
        var intervals: [[String: Any]] = []
        for day in days {
            let segments = day.workSegments(at: now)
            for (index, segment) in segments.enumerated() {
                var interval: [String: Any] = [
                    "id": intervals.count + 1, "start": timewarriorTime(segment.start),
                    "tags": day.tags.isEmpty ? ["work"] : day.tags,
                ]
                let isRunning = day.actualEnd == nil && day.status == .working && index == segments.count - 1
                if !isRunning { interval["end"] = timewarriorTime(segment.end) }
                intervals.append(interval)
            }
        }
        // Timewarrior lists the most recent interval as @1.
        for index in intervals.indices { intervals[index]["id"] = intervals.count - index }
        return try JSONSerialization.data(withJSONObject: intervals, options: [.prettyPrinted, .sortedKeys])
    }

    // MARK: Import

    /// Reads `timew export` JSON.
    public static func timewarrior(_ data: Data) throws -> [WorkImportedInterval] {
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw WorkError(
                .invalidFormat, "not a Timewarrior export: expected a JSON array of intervals",
                hint: "produce it with `timew export`")
        }
        return try list.enumerated().map { index, item in
            guard let startText = item["start"] as? String, let start = timewarriorDate(startText) else {
                throw WorkError(
                    .invalidFormat, "interval \(index + 1) has no valid start (expected e.g. 20261124T080000Z)")
            }
            var end: Date?
            if let endText = item["end"] {
                guard let text = endText as? String, let value = timewarriorDate(text), value >= start else {
                    throw WorkError(.invalidFormat, "interval \(index + 1) has an invalid end: \(endText)")
                }
                end = value
            }
            let tags = item["tags"] as? [String] ?? []
            return WorkImportedInterval(start: start, end: end, tags: tags, isBreak: tags.contains("break"))
        }
    }

    /// Reads Watson's frames file: `[[start, stop, project, id, tags, updated_at], …]` with Unix times.
    public static func watson(_ data: Data) throws -> [WorkImportedInterval] {
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[Any]] else {
            throw WorkError(
                .invalidFormat, "not a Watson frames file: expected a JSON array of frames",
                hint: "it is ~/.config/watson/frames")
        }
        return try list.enumerated().map { index, frame in
            guard frame.count >= 3, let start = (frame[0] as? NSNumber)?.doubleValue,
                let stop = (frame[1] as? NSNumber)?.doubleValue, stop >= start, let project = frame[2] as? String
            else {
                throw WorkError(
                    .invalidFormat, "frame \(index + 1) is not [start, stop, project, id, tags, updated_at]")
            }
            let tags = frame.count > 4 ? frame[4] as? [String] ?? [] : []
            return WorkImportedInterval(
                start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: stop),
                tags: [project] + tags, isBreak: project == "break" || tags.contains("break"))
        }
    }

    /// Reads Suite's own JSON export.
    public static func json(_ data: Data) throws -> [WorkDay] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do { return try decoder.decode([WorkDay].self, from: data) } catch {
            throw WorkError(
                .invalidFormat, "not a Suite work export: \(error)",
                hint: "produce it with `suite work export --format json`")
        }
    }

    /// Turns intervals into days of `uid`: an interval belongs to the date it starts on in the user's zone; a day runs
    /// from its first interval's start to its last one's end; intervals tagged `break` are breaks, and the gaps between
    /// intervals are breaks when `gapsAsBreaks`, untracked otherwise (never work). Overlapping intervals are refused.
    public static func days(
        uid: String, intervals: [WorkImportedInterval], settings: WorkSettings, gapsAsBreaks: Bool, source: String,
        now: Date
    ) throws -> [WorkDay] {
        let zone = settings.zone
        let sorted = intervals.sorted { $0.start < $1.start }
        for (a, b) in zip(sorted, sorted.dropFirst()) where (a.end ?? now) > b.start {
            throw WorkError(
                .overlap,
                "the interval from \(WorkTime.format(b.start, in: zone, withDate: true)) overlaps the one from "
                    + WorkTime.format(a.start, in: zone, withDate: true),
                hint: "fix the overlap in the other tool first")
        }
        if let running = sorted.dropLast().first(where: { $0.end == nil }) {
            throw WorkError(
                .invalidFormat,
                "the interval from \(WorkTime.format(running.start, in: zone, withDate: true)) has no end")
        }
        var groups: [(WorkDate, [WorkImportedInterval])] = []
        for interval in sorted {
            let date = WorkDate(interval.start, in: zone)
            if groups.last?.0 == date {
                groups[groups.count - 1].1.append(interval)
            } else {
                groups.append((date, [interval]))
            }
        }
        return groups.compactMap { date, intervals -> WorkDay? in
            guard let first = intervals.first(where: { !$0.isBreak }) ?? intervals.first else { return nil }
            var day = WorkDay(
                uid: uid, workDate: date, timeZone: settings.timeZone, plannedSeconds: settings.plannedSeconds(on: date)
            )
            let last = intervals.last ?? first
            day.actualStart = intervals.first?.start ?? first.start
            day.actualEnd = last.end
            day.status = last.end == nil ? (last.isBreak ? .onBreak : .working) : .ended
            var cursor = intervals.first?.start ?? first.start
            for interval in intervals {
                if interval.start > cursor {
                    day.breaks.append(
                        WorkInterval(start: cursor, end: interval.start, kind: gapsAsBreaks ? .breakTime : .untracked))
                }
                if interval.isBreak { day.breaks.append(WorkInterval(start: interval.start, end: interval.end)) }
                cursor = max(cursor, interval.end ?? cursor)
            }
            var tags: [String] = []
            for tag in intervals.flatMap(\.tags) where tag != "break" && !tags.contains(tag) { tags.append(tag) }
            day.tags = tags
            day.history.append(
                WorkHistoryEntry(
                    action: "import", from: nil, to: day.status, at: day.actualStart ?? now, recordedAt: now,
                    source: source, note: "\(intervals.count) intervals"))
            day.refreshTotals(at: now)
            return day
        }
    }

    // MARK: Helpers

    /// `20261124T080000Z`: a time as Timewarrior writes it (UTC).
    public static func timewarriorTime(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let day = WorkDate(daysSinceEpoch: Int((Double(seconds) / 86_400).rounded(.down)))
        let clock = ((seconds % 86_400) + 86_400) % 86_400
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ", day.year, day.month, day.day, clock / 3600, clock % 3600 / 60,
            clock % 60)
    }

    static func timewarriorDate(_ text: String) -> Date? {
        let digits = Array(text.utf8)
        guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: digits[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(4..<6), let dayNumber = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            let date = try? WorkDate(year: year, month: month, day: dayNumber), hour < 24, minute < 60, second < 60
        else { return nil }
        return Date(timeIntervalSince1970: Double(date.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second))
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
