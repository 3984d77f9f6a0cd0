import Documents
public import Foundation
import SuiteCore
import Synchronization

/// A correction of a day: each field given replaces the day's.
public struct WorkEdit: Sendable, Hashable {
    /// The actual start.
    public var start: Date?
    /// The actual end (only for an ended day, or a day this edit creates).
    public var end: Date?
    /// The breaks, replacing all of the day's (an empty list removes them).
    public var breaks: [WorkInterval]?
    /// A note, added to the day's notes.
    public var note: String?
    /// Tags, replacing the day's.
    public var tags: [String]?

    /// Creates an edit.
    public init(
        start: Date? = nil, end: Date? = nil, breaks: [WorkInterval]? = nil, note: String? = nil,
        tags: [String]? = nil
    ) {
        self.start = start
        self.end = end
        self.breaks = breaks
        self.note = note
        self.tags = tags
    }

    var isEmpty: Bool { start == nil && end == nil && breaks == nil && note == nil && tags == nil }
}

/// What `undo` took back.
public struct WorkUndoResult: Sendable, Hashable {
    /// The day.
    public var date: WorkDate
    /// The change taken back (`start`, `edit`, …).
    public var action: String
    /// The day as it is now (nil: the change had created it, so it is gone).
    public var day: WorkDay?
}

extension WorkTracker {
    /// Corrects a day: its start, end, breaks, notes or tags, validated as a whole — the end after the start, every
    /// break closed (but a running one) and inside the work interval, no two breaks overlapping, no overlap with the
    /// previous or next day's work. An overlap is refused naming the conflicting interval. A day that does not exist
    /// is created, ended, when the edit gives its start and end. Recorded in the history; `undo` takes it back.
    @discardableResult
    public func edit(user uid: String, date: WorkDate, _ edit: WorkEdit) async throws -> WorkDay {
        guard !edit.isEmpty else {
            throw WorkError(.invalidInput, "nothing to change", hint: "give --start, --end, --break, --note or --tag")
        }
        let now = clock.now
        let change = try await change(uid: uid, action: "edit", undoable: true) { tx, _, settings in
            let before = try await self.read(tx, uid, date)
            var day: WorkDay
            if let before {
                day = before
            } else {
                guard edit.start != nil, edit.end != nil else {
                    throw WorkError(
                        .notFound, "\(uid) has no day \(date)",
                        hint: "give both --start and --end to add it, or start it with `suite work start`")
                }
                day = self.newDay(uid, date, settings)
                day.status = .ended
            }
            var changed: [String] = []
            if let start = edit.start {
                guard day.status != .prepare else {
                    throw WorkError(
                        .invalidTransition, "the day \(date) has not started", hint: "start it with `suite work start`")
                }
                day.actualStart = start
                changed.append("start \(WorkTime.format(start, in: day.zone))")
            }
            if let end = edit.end {
                guard day.status == .ended else {
                    throw WorkError(
                        .invalidTransition, "the day \(date) is \(day.status); only an ended day has an end",
                        hint: "end it with `suite work end --at TIME`")
                }
                day.actualEnd = end
                changed.append("end \(WorkTime.format(end, in: day.zone))")
            }
            if let breaks = edit.breaks {
                guard day.status != .onBreak else {
                    throw WorkError(
                        .invalidTransition, "the day \(date) is on a break",
                        hint: "resume or end it, then edit its breaks")
                }
                day.breaks = breaks.sorted { $0.start < $1.start }
                changed.append(
                    breaks.isEmpty
                        ? "no breaks"
                        : "breaks " + day.breaks.map { self.interval($0, day.zone) }.joined(separator: ", "))
            }
            if let tags = edit.tags {
                day.tags = tags
                changed.append("tags \(tags.joined(separator: ","))")
            }
            if let note = edit.note, !note.isEmpty {
                day.notes.append(note)
                changed.append("note")
            }
            try self.validate(day, now: now)
            if let start = day.actualStart {
                guard WorkDate(start, in: day.zone) == date else {
                    throw WorkError(
                        .invalidInput,
                        "the start \(WorkTime.format(start, in: day.zone, withDate: true)) is not on \(date) in "
                            + day.timeZone,
                        hint: "a day starts on its own date; work past midnight stays on its start day")
                }
                try await self.checkNeighbours(tx, uid, date, start: start, end: day.actualEnd, now: now)
            }
            day.history.append(
                WorkHistoryEntry(
                    action: "edit", from: before?.status, to: day.status, at: now, recordedAt: now,
                    source: self.source, note: changed.joined(separator: "; ")))
            day.refreshTotals(at: now)
            return DayChange(date: date, before: before, after: day)
        }
        guard let day = change.after else { throw WorkError(.storage, "the day \(date) vanished while it was written") }
        return day
    }

    /// Takes back the user's last change (a transition, an edit or an undo's own restore is not undoable twice):
    /// the day returns to what it was, with an `undo` entry in its history; a day the change created is deleted.
    @discardableResult
    public func undo(user uid: String) async throws -> WorkUndoResult {
        let now = clock.now
        let taken = UndoBox()
        let change = try await change(uid: uid, action: "undo", undoable: false) { tx, record, _ in
            guard let last = record.undo.popLast() else {
                throw WorkError(.notFound, "\(uid) has nothing to undo", hint: "undo takes back transitions and edits")
            }
            taken.set(last.action)
            let current = try await self.read(tx, uid, last.date)
            guard var restored = last.before else {
                return DayChange(date: last.date, before: current, after: nil)
            }
            restored.history = (current?.history ?? restored.history)
            restored.history.append(
                WorkHistoryEntry(
                    action: "undo", from: current?.status, to: restored.status, at: now, recordedAt: now,
                    source: self.source, note: "took back \(last.action)"))
            restored.refreshTotals(at: now)
            return DayChange(date: last.date, before: current, after: restored)
        }
        return WorkUndoResult(date: change.date, action: taken.value, day: change.after)
    }

    /// Checks a day on its own: the end after the start, breaks closed (but a running one on a day on a break),
    /// inside the work interval and not overlapping each other.
    func validate(_ day: WorkDay, now: Date) throws {
        let zone = day.zone
        if day.status != .prepare, day.actualStart == nil {
            throw WorkError(.invalidInput, "the day \(day.workDate) is \(day.status) but has no start")
        }
        guard let start = day.actualStart else { return }
        if let end = day.actualEnd, end <= start {
            throw WorkError(
                .invalidInput,
                "the end \(WorkTime.format(end, in: zone, withDate: true)) is not after the start "
                    + WorkTime.format(start, in: zone, withDate: true),
                hint:
                    "an end past midnight needs its date: --end \(WorkTime.iso(end.addingTimeInterval(86_400), in: zone))"
            )
        }
        let end = day.actualEnd ?? now
        var previous: WorkInterval?
        for (index, interval) in day.breaks.enumerated() {
            let isRunning = interval.end == nil
            if isRunning, !(day.status == .onBreak && index == day.breaks.count - 1) {
                throw WorkError(.invalidInput, "the break from \(WorkTime.format(interval.start, in: zone)) has no end")
            }
            if let intervalEnd = interval.end, intervalEnd <= interval.start {
                throw WorkError(.invalidInput, "the break \(self.interval(interval, zone)) ends before it starts")
            }
            if interval.start < start || (interval.end ?? interval.start) > end {
                throw overlap(
                    "the break \(self.interval(interval, zone))",
                    "the edge of the work interval \(span(start, day.actualEnd, zone)): a break lies inside it")
            }
            if let previous, let previousEnd = previous.end, interval.start < previousEnd {
                throw overlap(
                    "the break \(self.interval(interval, zone))", "the break \(self.interval(previous, zone))")
            }
            previous = interval
        }
    }

    func interval(_ interval: WorkInterval, _ zone: TimeZone) -> String {
        "\(WorkTime.format(interval.start, in: zone))–\(interval.end.map { WorkTime.format($0, in: zone) } ?? "now")"
    }
}

/// Carries the undone action's name out of the transaction body (the body may run more than once).
private final class UndoBox: Sendable {
    private let stored = Mutex("")
    var value: String { stored.withLock { $0 } }
    func set(_ value: String) { stored.withLock { $0 = value } }
}
