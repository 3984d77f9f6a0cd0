import Documents
public import Foundation
import SuiteCore

extension WorkTracker {
    /// Reads `data` in `format` and records the days for `uid` (one transaction per day, each validated like an edit:
    /// breaks inside the work, no overlap with the neighbouring days). A day already recorded is refused, naming it,
    /// unless `replace`. Imports are not undoable. Returns the days written.
    @discardableResult
    public func importDays(
        _ data: Data, format: WorkImportFormat, user uid: String, gapsAsBreaks: Bool = false, replace: Bool = false
    ) async throws -> [WorkDay] {
        let settings = try await settings(user: uid)
        let now = clock.now
        let days: [WorkDay]
        switch format {
        case .timewarrior, .watson:
            let intervals = format == .watson ? try WorkInterop.watson(data) : try WorkInterop.timewarrior(data)
            days = try WorkInterop.days(
                uid: uid, intervals: intervals, settings: settings, gapsAsBreaks: gapsAsBreaks,
                source: "import:\(format.rawValue)", now: now)
        case .json:
            days = try WorkInterop.json(data).map { day in
                var day = day
                day.uid = uid
                return day
            }
        }
        var written: [WorkDay] = []
        for day in days {
            try validate(day, now: now)
            let change = try await change(uid: uid, action: "import", undoable: false) { tx, _, _ in
                let before = try await self.read(tx, uid, day.workDate)
                if before != nil, !replace {
                    throw WorkError(
                        .invalidInput, "\(uid) already has a day \(day.workDate)",
                        hint: "import with --replace to overwrite recorded days")
                }
                if let start = day.actualStart {
                    try await self.checkNeighbours(tx, uid, day.workDate, start: start, end: day.actualEnd, now: now)
                }
                return DayChange(date: day.workDate, before: before, after: day)
            }
            if let after = change.after { written.append(after) }
        }
        return written
    }

    /// The days of a range in `format`.
    public func export(user uid: String, from: WorkDate, through: WorkDate, format: WorkExportFormat) async throws
        -> Data
    {
        let days = try await readDays(user: uid, from: from, through: through)
        switch format {
        case .csv: return Data(WorkInterop.csv(days, now: clock.now).utf8)
        case .json: return try WorkInterop.json(days)
        case .timewarrior: return try WorkInterop.timewarrior(days, now: clock.now)
        }
    }
}
