public import Documents
public import Foundation
public import SuiteCore

/// Work days on a `Documents/DocumentStore`: the status flow, corrections with undo, and reports.
///
/// Every change is one Documents transaction that reads the user's document and the day, checks the flow, and writes
/// the day (`workInfo/{uid}/workHistory/{yyyy-MM-dd}`), the user's document (`workInfo/{uid}`: settings, the open
/// day, the undo stack) and the month summary (`workInfo/{uid}/workMonths/{yyyy-MM}`) together. Work tracking writes
/// only through the Documents API, so a store that syncs makes it offline-first with no code of its own.
///
/// ```swift
/// let store = DocumentStore(engine: try SQLiteDocumentEngine(path: "work.sqlite"), bus: EventBus())
/// let tracker = WorkTracker(store: store, defaults: .standard(in: TimeZone(identifier: "Europe/Berlin")!))
/// try await tracker.perform(.start, user: "ana")
/// try await tracker.perform(.pause, user: "ana")     // break
/// try await tracker.perform(.resume, user: "ana")
/// let week = try await tracker.week(user: "ana")     // worked, breaks, planned, overtime, per-day rows
/// ```
public final class WorkTracker: Sendable {
    /// The store days are kept in.
    public let store: DocumentStore
    /// The months read so far; kept current by this tracker's changes and other writers' commits.
    public let cache: WorkMonthCache
    /// Settings for users who have none stored.
    public let defaults: WorkSettings
    /// What the history records as the source of this tracker's changes (`cli`, `api`, a device name).
    public let source: String
    /// How many changes `undo` can take back per user.
    public static let undoDepth = 20

    let clock: any WallClock
    let events: EventPublisher?
    private let subscription: Subscription?
    private let conflicts: Subscription?

    /// Creates a tracker.
    /// - Parameters:
    ///   - store: where days live; its bus (if any) carries `work.status.changed` and `work.day.changed`.
    ///   - defaults: settings of users with none stored.
    ///   - source: recorded in each history entry.
    ///   - clock: the time of changes without an explicit time (the store's clock by default).
    public init(
        store: DocumentStore, defaults: WorkSettings = .standard(), source: String = "api",
        clock: (any WallClock)? = nil
    ) {
        self.store = store
        self.defaults = defaults
        self.source = source
        self.clock = clock ?? store.clock
        let cache = WorkMonthCache()
        self.cache = cache
        let events = store.bus?.publisher(source: "work")
        self.events = events
        subscription = store.bus?.subscribe(to: DocumentsChanged.self) { event in
            let deleted = Set(event.payload.deletedPaths)
            for path in event.payload.paths {
                guard let (uid, date) = WorkTracker.dayKey(path) else { continue }
                cache.invalidate(uid: uid, date: date)
                events?.publish(
                    WorkDayChanged(
                        payload: .init(uid: uid, date: date.description, deleted: deleted.contains(path))))
            }
        }
        conflicts = store.bus?.subscribe(named: "sync.conflict", as: SyncConflictPayload.self) { conflict, _ in
            if let event = WorkTracker.workConflict(conflict) { events?.publish(event) }
        }
    }

    deinit {
        subscription?.cancel()
        conflicts?.cancel()
    }

    /// What the Sync module's `sync.conflict` carries (read by name: Work tracking does not import Sync).
    struct SyncConflictPayload: Decodable, Sendable {
        var paths: [String]
        var ours: JSONValue?
        var theirs: JSONValue?
    }

    /// Turns a sync conflict on a day document into `work.conflict`, naming both sides' last changes.
    static func workConflict(_ conflict: SyncConflictPayload) -> WorkConflict? {
        guard let path = conflict.paths.first, let (uid, date) = dayKey(path) else { return nil }
        func day(_ json: JSONValue?) -> WorkDay? {
            guard let json, let data = try? DocumentJSON.data(from: json) else { return nil }
            return try? DocumentDecoder().decode(WorkDay.self, from: data)
        }
        let ours = day(conflict.ours)
        let theirs = day(conflict.theirs)
        return WorkConflict(
            payload: .init(
                uid: uid, date: date.description, ours: ours?.history.last, theirs: theirs?.history.last,
                status: theirs?.status.rawValue))
    }

    // MARK: Paths

    func userReference(_ uid: String) throws -> DocumentReference {
        try checked(uid) { try store.document("workInfo/\(uid)") }
    }

    func dayReference(_ uid: String, _ date: WorkDate) throws -> DocumentReference {
        try checked(uid) { try store.document("workInfo/\(uid)/workHistory/\(date)") }
    }

    func monthReference(_ uid: String, _ month: WorkMonth) throws -> DocumentReference {
        try checked(uid) { try store.document("workInfo/\(uid)/workMonths/\(month)") }
    }

    private func checked<T>(_ uid: String, _ body: () throws -> T) throws -> T {
        guard !uid.isEmpty, !uid.contains("/"), uid != ".", uid != ".." else {
            throw WorkError(.invalidInput, "'\(uid)' is not a user id", hint: "a user id is one path segment, e.g. ana")
        }
        do { return try body() } catch {
            throw WorkError(.invalidInput, "'\(uid)' is not a user id: \(error)", underlying: error)
        }
    }

    /// The user and date of a day document's path, `workInfo/{uid}/workHistory/{yyyy-MM-dd}`.
    static func dayKey(_ path: String) -> (String, WorkDate)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "workInfo", parts[2] == "workHistory",
            let date = try? WorkDate(String(parts[3]))
        else { return nil }
        return (String(parts[1]), date)
    }

    // MARK: Settings

    /// The user's settings: stored ones, or the tracker's defaults.
    public func settings(user uid: String) async throws -> WorkSettings {
        let record = try await decode(WorkUserRecord.self, try await userReference(uid).getDocument())
        return record?.settings ?? defaults
    }

    /// Stores the user's settings. Days already recorded keep their zone and planned time.
    public func updateSettings(_ settings: WorkSettings, user uid: String) async throws {
        let validated = try WorkSettings(
            timeZone: settings.timeZone, firstWeekday: settings.firstWeekday, plannedHours: settings.plannedHours)
        let reference = try userReference(uid)
        try await storage {
            try await store.runTransaction { tx in
                var record = try await self.decode(WorkUserRecord.self, try await tx.getDocument(reference)) ?? .init()
                record.settings = validated
                try tx.setData(from: record, forDocument: reference)
            }
        }
    }

    // MARK: The status flow

    /// Moves the user's day in the status flow and returns it.
    ///
    /// `start` opens the day of `at` in the user's zone (refused while another day is still open, or when it would
    /// overlap the previous day's work); `break`, `resume` and `end` apply to the open day; `reopen` to the ended day
    /// of `date` (today by default), turning the time since its end into a break. A time before the day's last change,
    /// or more than a minute in the future, is refused.
    /// - Parameters:
    ///   - action: the transition (`start`, `pause`, `resume`, `end`, `reopen`).
    ///   - uid: the user whose day moves.
    ///   - time: when it happened (now by default).
    ///   - date: the day, when it is not the open day or today.
    ///   - note: kept in the day's notes and the history entry.
    @discardableResult
    public func perform(
        _ action: WorkAction, user uid: String, at time: Date? = nil, date: WorkDate? = nil, note: String? = nil
    ) async throws -> WorkDay {
        let now = clock.now
        let at = time ?? now
        guard at <= now.addingTimeInterval(60) else {
            throw WorkError(
                .invalidInput, "\(WorkTime.iso(at, in: defaults.zone)) is in the future",
                hint: "a change is recorded when it happens; plan days with planned times instead")
        }
        let change = try await change(uid: uid, action: action.rawValue, undoable: true) { tx, record, settings in
            let target: WorkDate
            switch action {
            case .start:
                if let open = record.openDay, open != (date ?? WorkDate(at, in: settings.zone)) {
                    let status = try await self.read(tx, uid, open)?.status ?? .working
                    throw WorkError(
                        .invalidTransition, "cannot start: the day \(open) is still \(status)",
                        hint: "end it first: suite work end [--at TIME]")
                }
                target = date ?? WorkDate(at, in: settings.zone)
            case .pause, .resume, .end:
                target = date ?? record.openDay ?? WorkDate(at, in: settings.zone)
            case .reopen:
                target = date ?? WorkDate(at, in: settings.zone)
            }
            let before = try await self.read(tx, uid, target)
            var day = before ?? self.newDay(uid, target, settings)
            guard action.sources.contains(day.status) else { throw action.refused(from: day.status, on: target) }
            if let last = day.lastEventTime, at < last {
                throw WorkError(
                    .invalidInput,
                    "\(WorkTime.format(at, in: day.zone, withDate: true)) is before the day's last change at "
                        + WorkTime.format(last, in: day.zone, withDate: true),
                    hint: "give a later time, or correct the day with `suite work edit \(target)`")
            }
            switch action {
            case .start:
                guard WorkDate(at, in: day.zone) == target else {
                    throw WorkError(
                        .invalidInput,
                        "\(WorkTime.format(at, in: day.zone, withDate: true)) is not on \(target) in \(day.timeZone)",
                        hint: "a day starts on its own date")
                }
                try await self.checkNeighbours(tx, uid, target, start: at, end: nil, now: now)
                day.actualStart = at
            case .pause:
                day.breaks.append(WorkInterval(start: at, end: nil))
            case .resume:
                day.breaks[day.breaks.count - 1].end = at
            case .end:
                if day.status == .onBreak, let last = day.breaks.indices.last { day.breaks[last].end = at }
                day.actualEnd = at
            case .reopen:
                if let end = day.actualEnd, at > end { day.breaks.append(WorkInterval(start: end, end: at)) }
                day.actualEnd = nil
                try await self.checkNeighbours(tx, uid, target, start: day.actualStart ?? at, end: nil, now: now)
            }
            let from = day.status
            day.status = action.target
            if let note, !note.isEmpty { day.notes.append(note) }
            day.history.append(
                WorkHistoryEntry(
                    action: action.rawValue, from: from, to: day.status, at: at, recordedAt: now, source: self.source,
                    note: note))
            day.refreshTotals(at: now)
            return DayChange(date: target, before: before, after: day)
        }
        guard let day = change.after else {
            throw WorkError(.storage, "the day \(change.date) vanished while it was written")
        }
        events?.publish(
            WorkStatusChanged(
                payload: .init(
                    uid: uid, date: change.date.description, action: action.rawValue,
                    from: (change.before?.status ?? .prepare).rawValue, to: day.status.rawValue, at: at,
                    source: source)))
        return day
    }

    /// The day `perform` would act on for the user now: the open day, else today's (nil when today has nothing).
    public func current(user uid: String) async throws -> WorkDay? {
        let record = try await decode(WorkUserRecord.self, try await userReference(uid).getDocument()) ?? .init()
        let settings = record.settings ?? defaults
        let date = record.openDay ?? WorkDate(clock.now, in: settings.zone)
        return try await day(user: uid, date: date)
    }

    /// One day, or nil.
    public func day(user uid: String, date: WorkDate) async throws -> WorkDay? {
        try await decode(WorkDay.self, try await dayReference(uid, date).getDocument())
    }

    func newDay(_ uid: String, _ date: WorkDate, _ settings: WorkSettings) -> WorkDay {
        WorkDay(
            uid: uid, workDate: date, timeZone: settings.timeZone, plannedSeconds: settings.plannedSeconds(on: date))
    }
}
