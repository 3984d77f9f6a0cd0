public import Foundation

/// Totals over a range of dates with a row per date: what `suite work today|week|month` show.
///
/// Worked time excludes breaks and untracked intervals; planned time is each recorded day's own, and the user's planned
/// hours for dates without a record from the user's first recorded day up to today (dates before the first record are
/// not missed work, and dates after today plan nothing until recorded); overtime is worked less planned. A day's time stays on its start date unless the report splits at midnight.
public struct WorkReport: Sendable, Hashable, Codable {
    /// One date.
    public struct Row: Sendable, Hashable, Codable {
        /// The date.
        public var date: WorkDate
        /// The day's status, nil when nothing is recorded.
        public var status: WorkStatus?
        /// The actual start.
        public var start: Date?
        /// The actual end.
        public var end: Date?
        /// Worked seconds on this date.
        public var workedSeconds: Int
        /// Break seconds.
        public var breakSeconds: Int
        /// Planned seconds.
        public var plannedSeconds: Int
        /// Worked less planned.
        public var overtimeSeconds: Int
        /// The day's notes.
        public var notes: [String]
    }

    /// The user.
    public var uid: String
    /// The zone times are shown in: the user's.
    public var timeZone: String
    /// The first date.
    public var from: WorkDate
    /// The last date.
    public var through: WorkDate
    /// Total worked seconds (breaks excluded).
    public var workedSeconds: Int
    /// Total break seconds.
    public var breakSeconds: Int
    /// Total planned seconds.
    public var plannedSeconds: Int
    /// Worked less planned.
    public var overtimeSeconds: Int
    /// Dates with work.
    public var daysWorked: Int
    /// Every date of the range, in order.
    public var days: [Row]

    /// Builds the report from the recorded days (any order; days outside the range only count when splitting at
    /// midnight carries their work into it). `plannedFrom` is the user's first recorded day: dates before it without
    /// a record plan nothing (nil: every date up to today plans the user's hours).
    public static func build(
        uid: String, from: WorkDate, through: WorkDate, days recorded: [WorkDay], settings: WorkSettings, now: Date,
        splitAtMidnight: Bool = false, plannedFrom: WorkDate? = nil
    ) -> WorkReport {
        let count = max(0, from.days(to: through) + 1)
        let today = WorkDate(now, in: settings.zone)
        var rows: [Row] = (0..<count).map { offset in
            let date = from.adding(days: offset)
            let planned =
                date <= today && plannedFrom.map { date >= $0 } != false ? settings.plannedSeconds(on: date) : 0
            return Row(
                date: date, status: nil, start: nil, end: nil, workedSeconds: 0, breakSeconds: 0,
                plannedSeconds: planned, overtimeSeconds: 0, notes: [])
        }
        var worked = [Double](repeating: 0, count: count)
        for day in recorded {
            let index = from.days(to: day.workDate)
            if rows.indices.contains(index) {
                rows[index].status = day.status
                rows[index].start = day.actualStart
                rows[index].end = day.actualEnd
                rows[index].breakSeconds = Int(day.breakTime(at: now).rounded())
                rows[index].plannedSeconds = day.plannedSeconds
                rows[index].notes = day.notes
            }
            if splitAtMidnight {
                let zone = day.zone
                for segment in day.workSegments(at: now) {
                    var cursor = segment.start
                    while cursor < segment.end {
                        let date = WorkDate(cursor, in: zone)
                        let next = min(segment.end, date.adding(days: 1).start(in: zone))
                        let at = from.days(to: date)
                        if worked.indices.contains(at) { worked[at] += next.timeIntervalSince(cursor) }
                        guard next > cursor else { break }
                        cursor = next
                    }
                }
            } else if worked.indices.contains(index) {
                worked[index] += day.worked(at: now)
            }
        }
        for index in rows.indices {
            rows[index].workedSeconds = Int(worked[index].rounded())
            rows[index].overtimeSeconds = rows[index].workedSeconds - rows[index].plannedSeconds
        }
        let totalWorked = rows.reduce(0) { $0 + $1.workedSeconds }
        let totalPlanned = rows.reduce(0) { $0 + $1.plannedSeconds }
        return WorkReport(
            uid: uid, timeZone: settings.timeZone, from: from, through: through, workedSeconds: totalWorked,
            breakSeconds: rows.reduce(0) { $0 + $1.breakSeconds }, plannedSeconds: totalPlanned,
            overtimeSeconds: totalWorked - totalPlanned, daysWorked: rows.filter { $0.workedSeconds > 0 }.count,
            days: rows)
    }
}

/// One user's month in the team view.
public struct WorkTeamRow: Sendable, Hashable, Codable {
    /// The user.
    public var uid: String
    /// Worked seconds.
    public var workedSeconds: Int
    /// Break seconds.
    public var breakSeconds: Int
    /// Planned seconds (recorded days' own, the user's planned hours for other dates up to today).
    public var plannedSeconds: Int
    /// Worked less planned.
    public var overtimeSeconds: Int
    /// Days with work.
    public var daysWorked: Int
}
