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
