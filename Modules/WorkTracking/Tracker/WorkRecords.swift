import Documents
public import Foundation

/// The user's document, `workInfo/{uid}`: settings, the open day and the undo stack.
struct WorkUserRecord: Sendable, Hashable, Codable {
    var settings: WorkSettings?
    /// The day that is working or on a break, if any: where `break`, `resume` and `end` apply.
    var openDay: WorkDate?
    /// The changes `undo` can take back, newest last (at most ``WorkTracker/undoDepth``).
    var undo: [WorkUndoEntry]

    init() {
        settings = nil
        openDay = nil
        undo = []
    }
}

/// What one change replaced: the day as it was before (nil when the change created it).
struct WorkUndoEntry: Sendable, Hashable, Codable {
    var date: WorkDate
    var action: String
    var recordedAt: Date
    var before: WorkDay?
}

/// One day in a month summary: enough to total the day at any instant without reading the day's document.
public struct WorkDaySummary: Sendable, Hashable, Codable {
    /// The day's status.
    public var status: WorkStatus
    /// Its actual start.
    public var start: Date?
    /// Its actual end.
    public var end: Date?
    /// Closed breaks, in seconds.
    public var closedBreakSeconds: Int
    /// Closed untracked intervals, in seconds.
    public var closedUntrackedSeconds: Int
    /// The start of the break running now, if any.
    public var openBreakStart: Date?
    /// Planned seconds.
    public var plannedSeconds: Int

    init(
        status: WorkStatus, start: Date?, end: Date?, closedBreakSeconds: Int, closedUntrackedSeconds: Int,
        openBreakStart: Date?, plannedSeconds: Int
    ) {
        self.status = status
        self.start = start
        self.end = end
        self.closedBreakSeconds = closedBreakSeconds
        self.closedUntrackedSeconds = closedUntrackedSeconds
        self.openBreakStart = openBreakStart
        self.plannedSeconds = plannedSeconds
    }

    init(_ day: WorkDay) {
        status = day.status
        start = day.actualStart
        end = day.actualEnd
        let closed = day.breaks.filter { $0.end != nil }
        closedBreakSeconds = Int(
            closed.filter { $0.kind == .breakTime }.reduce(0) { $0 + $1.seconds(at: .distantPast) })
        closedUntrackedSeconds = Int(
            closed.filter { $0.kind == .untracked }.reduce(0) { $0 + $1.seconds(at: .distantPast) })
        openBreakStart = day.breaks.last(where: { $0.end == nil })?.start
        plannedSeconds = day.plannedSeconds
    }

    /// Worked seconds at `now`.
    public func worked(at now: Date) -> Int {
        guard let start else { return 0 }
        let end = self.end ?? max(now, start)
        let open = openBreakStart.map { max(0, end.timeIntervalSince($0)) } ?? 0
        return max(0, Int(end.timeIntervalSince(start) - open) - closedBreakSeconds - closedUntrackedSeconds)
    }

    /// Break seconds at `now`.
    public func breaks(at now: Date) -> Int {
        let end = self.end ?? now
        return closedBreakSeconds + Int(openBreakStart.map { max(0, end.timeIntervalSince($0)) } ?? 0)
    }
}

/// A user's month at `workInfo/{uid}/workMonths/{yyyy-MM}`, written in the same transaction as every day change, so
/// the team view reads one document per user instead of every day.
struct WorkMonthSummary: Sendable, Hashable, Codable {
    var uid: String
    var month: WorkMonth
    var days: [String: WorkDaySummary]
}

extension WorkMonthSummary {
    /// Reads a summary document's fields directly; nil when the document does not exist, a storage error naming the
    /// path when it is not a month summary.
    init?(snapshot: DocumentSnapshot) throws {
        guard let data = snapshot.data else { return nil }
        guard case .string(let uid)? = data["uid"], case .string(let monthText)? = data["month"],
            let month = try? WorkMonth(monthText), case .map(let days)? = data["days"]
        else { throw WorkMonthSummary.corrupt(snapshot.path.description) }
        var decoded: [String: WorkDaySummary] = [:]
        decoded.reserveCapacity(days.count)
        for (date, value) in days {
            guard let day = WorkDaySummary(value) else { throw WorkMonthSummary.corrupt(snapshot.path.description) }
            decoded[date] = day
        }
        self.init(uid: uid, month: month, days: decoded)
    }

    static func corrupt(_ path: String) -> WorkError {
        WorkError(
            .storage, "\(path) is not a work month summary",
            hint: "it was written by something else; fix or delete it with `suite docs`")
    }
}

extension WorkDaySummary {
    /// Reads one day of a summary document.
    init?(_ value: DocumentValue) {
        guard case .map(let fields) = value, case .string(let status)? = fields["status"],
            let parsed = WorkStatus(rawValue: status)
        else { return nil }
        func seconds(_ key: String) -> Int? {
            if case .int(let value)? = fields[key] { return Int(value) }
            return nil
        }
        func time(_ key: String) -> Date? {
            if case .timestamp(let value)? = fields[key] { return value.date }
            return nil
        }
        guard let closedBreaks = seconds("closedBreakSeconds"), let closedUntracked = seconds("closedUntrackedSeconds"),
            let planned = seconds("plannedSeconds")
        else { return nil }
        self.init(
            status: parsed, start: time("start"), end: time("end"), closedBreakSeconds: closedBreaks,
            closedUntrackedSeconds: closedUntracked, openBreakStart: time("openBreakStart"), plannedSeconds: planned)
    }
}
