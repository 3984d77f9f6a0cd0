import Documents
import Foundation
import SuiteCore

/// One day's change inside a transaction: what it was and what it becomes (nil: deleted).
struct DayChange: Sendable {
    var date: WorkDate
    var before: WorkDay?
    var after: WorkDay?
}

extension WorkTracker {
    /// Runs one change as a Documents transaction: reads the user's document, lets `body` read and decide, then writes
    /// the day, the user's document (open day, undo stack) and the month summary together.
    func change(
        uid: String, action: String, undoable: Bool,
        _ body: @escaping @Sendable (Transaction, inout WorkUserRecord, WorkSettings) async throws -> DayChange
    ) async throws -> DayChange {
        let userReference = try userReference(uid)
        let change = try await storage {
            try await store.runTransaction { tx in
                var record =
                    try await self.decode(WorkUserRecord.self, try await tx.getDocument(userReference)) ?? .init()
                let settings = record.settings ?? self.defaults
                let change = try await body(tx, &record, settings)
                let monthReference = try self.monthReference(uid, change.date.workMonth)
                var summary =
                    try await self.decode(WorkMonthSummary.self, try await tx.getDocument(monthReference))
                    ?? WorkMonthSummary(uid: uid, month: change.date.workMonth, days: [:])
                summary.days[change.date.description] = change.after.map(WorkDaySummary.init)
                if change.after?.status.isOpen == true {
                    record.openDay = change.date
                } else if record.openDay == change.date {
                    record.openDay = nil
                }
                if undoable {
                    record.undo.append(
                        WorkUndoEntry(
                            date: change.date, action: action, recordedAt: self.clock.now, before: change.before))
                    if record.undo.count > WorkTracker.undoDepth {
                        record.undo.removeFirst(record.undo.count - WorkTracker.undoDepth)
                    }
                }
                let dayReference = try self.dayReference(uid, change.date)
                if let after = change.after {
                    try tx.setData(from: after, forDocument: dayReference)
                } else {
                    tx.deleteDocument(dayReference)
                }
                try tx.setData(from: record, forDocument: userReference)
                if summary.days.isEmpty {
                    tx.deleteDocument(monthReference)
                } else {
                    try tx.setData(from: summary, forDocument: monthReference)
                }
                return change
            }
        }
        cache.apply(uid: uid, date: change.date, change.after)
        return change
    }

    /// The day in a transaction, or nil.
    func read(_ tx: Transaction, _ uid: String, _ date: WorkDate) async throws -> WorkDay? {
        try await decode(WorkDay.self, try await tx.getDocument(dayReference(uid, date)))
    }

    /// A snapshot decoded, nil when the document does not exist; a document that does not decode is a storage error
    /// naming its path.
    func decode<T: Decodable>(_ type: T.Type, _ snapshot: DocumentSnapshot) throws -> T? {
        guard snapshot.exists else { return nil }
        do { return try snapshot.data(as: type) } catch {
            throw WorkError(
                .storage, "\(snapshot.path) is not a work document: \(error)",
                hint: "it was written by something else; fix or delete it with `suite docs`", underlying: error)
        }
    }

    /// Runs store work, turning Documents errors into ``WorkError`` (work errors pass through).
    func storage<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as WorkError { throw error } catch {
            let message = (error as? DocumentsError)?.message ?? "\(error)"
            throw WorkError(
                .storage, "the document store failed: \(message)", hint: (error as? DocumentsError)?.hint,
                underlying: error)
        }
    }

    /// Refuses work on `date` from `start` to `end` (open: until now) that overlaps the previous or the next day's.
    func checkNeighbours(
        _ tx: Transaction, _ uid: String, _ date: WorkDate, start: Date, end: Date?, now: Date
    ) async throws {
        if let previous = try await read(tx, uid, date.adding(days: -1)), let previousStart = previous.actualStart {
            let previousEnd = previous.actualEnd ?? now
            if previousEnd > start {
                throw overlap(
                    "the work of \(date) from \(WorkTime.format(start, in: previous.zone, withDate: true))",
                    "\(previous.workDate)'s work \(span(previousStart, previous.actualEnd, previous.zone))")
            }
        }
        if let next = try await read(tx, uid, date.adding(days: 1)), let nextStart = next.actualStart {
            if (end ?? now) > nextStart {
                throw overlap(
                    "the work of \(date) \(span(start, end, next.zone))",
                    "\(next.workDate)'s work \(span(nextStart, next.actualEnd, next.zone))")
            }
        }
    }

    func overlap(_ what: String, _ other: String) -> WorkError {
        WorkError(
            .overlap, "\(what) overlaps \(other)",
            hint: "intervals never overlap: correct one of them with `suite work edit DATE`")
    }

    /// `2026-11-24 08:00–17:00` (or `–now`).
    func span(_ start: Date, _ end: Date?, _ zone: TimeZone) -> String {
        let to =
            end.map {
                WorkDate($0, in: zone) == WorkDate(start, in: zone)
                    ? WorkTime.format($0, in: zone) : WorkTime.format($0, in: zone, withDate: true)
            } ?? "now"
        return "\(WorkTime.format(start, in: zone, withDate: true))–\(to)"
    }
}
