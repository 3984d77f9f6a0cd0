import Foundation
import SuiteHost

extension WorkCommand {
    /// A report as a table with a bar per day and a totals line, or as JSON.
    static func show(_ report: WorkReport, json: Bool, title: String) throws {
        if json {
            try printJSON(report)
            return
        }
        let widest = report.days.map { max($0.workedSeconds, $0.plannedSeconds) }.max() ?? 0
        var table = TextTable(
            ["DATE", "DAY", "STATUS", "START", "END", "WORKED", "BREAKS", "PLANNED", "OVERTIME", ""],
            alignments: [.left, .left, .left, .right, .right, .right, .right, .right, .right])
        let zone = TimeZone(identifier: report.timeZone) ?? .current
        for row in report.days {
            table.append([
                row.date.description, String(WorkSettings.weekdayNames[row.date.weekday - 1].prefix(3)),
                row.status?.rawValue ?? "-", row.start.map { WorkTime.format($0, in: zone) } ?? "",
                row.end.map { WorkTime.format($0, in: zone) } ?? "", WorkTime.duration(row.workedSeconds),
                WorkTime.duration(row.breakSeconds), WorkTime.duration(row.plannedSeconds),
                signed(row.overtimeSeconds), bar(row.workedSeconds, of: widest),
            ])
        }
        Output.print(title)
        Output.print(table.render())
        Output.print(totalsLine(report))
    }

    static func totalsLine(_ report: WorkReport) -> String {
        "total: worked \(WorkTime.duration(report.workedSeconds)), breaks \(WorkTime.duration(report.breakSeconds)), "
            + "planned \(WorkTime.duration(report.plannedSeconds)), overtime \(signed(report.overtimeSeconds)), "
            + "\(report.daysWorked) days worked"
    }

    /// A month as a calendar: a week per line from the first weekday, each date with its worked hours.
    static func calendar(_ report: WorkReport, firstWeekday: Int) -> String {
        let names = (0..<7).map { String(WorkSettings.weekdayNames[(firstWeekday - 1 + $0) % 7].prefix(2)).capitalized }
        var lines = [
            "\(report.from.workMonth)", names.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined(),
        ]
        var cells = [String](repeating: "", count: (report.from.weekday - firstWeekday + 7) % 7)
        for row in report.days {
            let hours = row.workedSeconds > 0 ? String(format: "%.1fh", Double(row.workedSeconds) / 3600) : "·"
            cells.append(String(format: "%2d %@", row.date.day, hours))
        }
        while !cells.isEmpty {
            let week = cells.prefix(7)
            lines.append(week.map { $0.padding(toLength: 10, withPad: " ", startingAt: 0) }.joined())
            cells.removeFirst(week.count)
        }
        return lines.joined(separator: "\n")
    }

    static func bar(_ value: Int, of total: Int, width: Int = 20) -> String {
        let filled = total > 0 ? Int((Double(value) / Double(total) * Double(width)).rounded()) : 0
        return String(repeating: "█", count: max(filled, value > 0 ? 1 : 0))
    }

    static func signed(_ seconds: Int) -> String {
        seconds > 0 ? "+" + WorkTime.duration(seconds) : WorkTime.duration(seconds)
    }

    /// Prints a value as JSON (dates ISO 8601, keys sorted).
    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        Output.print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// Where `START-END` splits: the `-` after which the rest parses as a time (12:00-12:30,
    /// 2026-11-24T23:30-2026-11-25T00:10).
    static func intervalSeparator(_ text: String) -> String.Index? {
        let candidates = text.indices.filter { text[$0] == "-" }
        if let clock = candidates.first(where: { text[..<$0].count == 5 || text[..<$0].count == 8 }),
            !text[..<clock].contains("T")
        {
            return clock
        }
        // ISO times: the separator is followed by a date (four digits and a dash).
        return candidates.first { index in
            let rest = text[text.index(after: index)...]
            return index != text.startIndex && rest.count >= 5 && rest.prefix(4).allSatisfy(\.isNumber)
                && rest.dropFirst(4).first == "-" && text[..<index].contains("T")
        }
    }
}
