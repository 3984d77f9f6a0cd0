public import Foundation

/// A stretch of a day that is not work: a break, or an untracked gap (imported intervals with a hole between them).
public struct WorkInterval: Sendable, Hashable, Codable {
    /// What the interval is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A break: counted in the break totals.
        case breakTime = "break"
        /// Neither work nor a break: a hole between imported intervals, kept as is unless breaks were asked for.
        case untracked
    }

    /// When it began.
    public var start: Date
    /// When it ended; `nil` while the break is running.
    public var end: Date?
    /// Break or untracked.
    public var kind: Kind

    /// Creates an interval.
    public init(start: Date, end: Date?, kind: Kind = .breakTime) {
        self.start = start
        self.end = end
        self.kind = kind
    }

    /// Its length at `now` (a running interval counts until `now`).
    public func seconds(at now: Date) -> TimeInterval { max(0, (end ?? max(now, start)).timeIntervalSince(start)) }
}

/// One entry of a day's history: a status change, an edit, an undo or an import.
public struct WorkHistoryEntry: Sendable, Hashable, Codable {
    /// `start`, `break`, `resume`, `end`, `reopen`, `edit`, `undo` or `import`.
    public var action: String
    /// The status before.
    public var from: WorkStatus?
    /// The status after.
    public var to: WorkStatus
    /// The time the change takes effect (the `--at` time of a transition).
    public var at: Date
    /// When it was recorded.
    public var recordedAt: Date
    /// Who or what made it: `cli`, `api`, `import:timewarrior`, a device name.
    public var source: String
    /// A note given with it, or what an edit changed.
    public var note: String?

    /// Creates an entry.
    public init(
        action: String, from: WorkStatus?, to: WorkStatus, at: Date, recordedAt: Date, source: String,
        note: String? = nil
    ) {
        self.action = action
        self.from = from
        self.to = to
        self.at = at
        self.recordedAt = recordedAt
        self.source = source
        self.note = note
    }
}

/// One user's work on one date: the document at `workInfo/{uid}/workHistory/{yyyy-MM-dd}` (seed 004's layout).
///
/// A day belongs to the date it started on in the zone it was recorded in (``timeZone``); work past midnight stays on
/// its start day (reports can split it at midnight). Worked time is the interval from ``actualStart`` to
/// ``actualEnd`` (or now) less every break and untracked interval: breaks never count as work.
public struct WorkDay: Sendable, Hashable, Codable {
    /// The user.
    public var uid: String
    /// The date, also stored as a field so that date ranges are queries.
    public var workDate: WorkDate
    /// Where the day stands.
    public var status: WorkStatus
    /// The IANA time zone the day was recorded in, e.g. `Europe/Berlin`.
    public var timeZone: String
    /// The planned start, if one was set.
    public var plannedStart: Date?
    /// The planned end, if one was set.
    public var plannedEnd: Date?
    /// Planned work in seconds: from the planned start and end, or the user's planned hours for the weekday.
    public var plannedSeconds: Int
    /// Set when the day leaves prepare.
    public var actualStart: Date?
    /// Set when the day ends.
    public var actualEnd: Date?
    /// Breaks and untracked intervals, in order, inside the work interval.
    public var breaks: [WorkInterval]
    /// The closed breaks' total in seconds (untracked intervals excluded), as of the last write.
    public var breakSeconds: Int
    /// Worked seconds as of the last write (exact for an ended day).
    public var workedSeconds: Int
    /// Notes given with transitions and edits.
    public var notes: [String]
    /// Tags.
    public var tags: [String]
    /// Every change, oldest first.
    public var history: [WorkHistoryEntry]

    /// Creates a day in prepare.
    public init(
        uid: String, workDate: WorkDate, timeZone: String, plannedSeconds: Int, plannedStart: Date? = nil,
        plannedEnd: Date? = nil
    ) {
        self.uid = uid
        self.workDate = workDate
        self.status = .prepare
        self.timeZone = timeZone
        self.plannedStart = plannedStart
        self.plannedEnd = plannedEnd
        self.plannedSeconds = plannedSeconds
        self.actualStart = nil
        self.actualEnd = nil
        self.breaks = []
        self.breakSeconds = 0
        self.workedSeconds = 0
        self.notes = []
        self.tags = []
        self.history = []
    }

    /// The zone the day was recorded in (UTC if the identifier is unknown to this machine).
    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(secondsFromGMT: 0) ?? .current }

    /// The time of the day's last change of status, or its start.
    public var lastEventTime: Date? {
        [actualStart, actualEnd, breaks.last?.start, breaks.last?.end].compactMap { $0 }.max()
    }

    /// The work intervals at `now`: the day's span less its breaks and untracked intervals.
    public func workSegments(at now: Date) -> [(start: Date, end: Date)] {
        guard let start = actualStart else { return [] }
        let end = actualEnd ?? max(now, start)
        var segments: [(start: Date, end: Date)] = []
        var cursor = start
        for interval in breaks.sorted(by: { $0.start < $1.start }) {
            let from = min(max(interval.start, cursor), end)
            if from > cursor { segments.append((cursor, from)) }
            cursor = max(cursor, min(interval.end ?? end, end))
        }
        if end > cursor { segments.append((cursor, end)) }
        return segments
    }

    /// Worked seconds at `now` (breaks and untracked intervals excluded).
    public func worked(at now: Date) -> TimeInterval {
        workSegments(at: now).reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
    }

    /// Break seconds at `now` (a running break counts until `now`).
    public func breakTime(at now: Date) -> TimeInterval {
        let end = actualEnd ?? now
        return breaks.filter { $0.kind == .breakTime }.reduce(0) {
            $0 + max(0, min($1.end ?? end, end).timeIntervalSince($1.start))
        }
    }

    /// Refreshes the stored totals (``breakSeconds``, ``workedSeconds``) for `now`.
    mutating func refreshTotals(at now: Date) {
        breakSeconds = Int(breakTime(at: now).rounded())
        workedSeconds = Int(worked(at: now).rounded())
    }
}
