import Documents
public import Foundation
import SuiteCore

extension WorkTracker {
    /// The recorded days of a month, from the month cache: read from the store the first time, then only the days
    /// another writer changed since.
    public func monthDays(user uid: String, month: WorkMonth) async throws -> [WorkDate: WorkDay] {
        let key = WorkMonthCache.Key(uid: uid, month: month)
        if let cached = cache.lookup(key) {
            guard !cached.stale.isEmpty else { return cached.days }
            var fresh: [WorkDate: WorkDay?] = [:]
            for date in cached.stale { fresh[date] = .some(try await day(user: uid, date: date)) }
            cache.refresh(key, fresh)
            return cache.lookup(key)?.days ?? [:]
        }
        let days = try await readDays(user: uid, from: month.first, through: month.last)
        let map = Dictionary(days.map { ($0.workDate, $0) }, uniquingKeysWith: { a, _ in a })
        cache.store(key, days: map)
        return map
    }

    /// The recorded days from `from` through `through`, read from the store (one range query on `workDate`).
    public func readDays(user uid: String, from: WorkDate, through: WorkDate) async throws -> [WorkDay] {
        let collection = try checkedCollection(uid)
        let snapshot = try await storage {
            try await collection.query
                .whereField("workDate", isGreaterThanOrEqualTo: .string(from.description))
                .whereField("workDate", isLessThanOrEqualTo: .string(through.description))
                .getDocuments()
        }
        return try snapshot.documents.compactMap { try decode(WorkDay.self, $0) }
    }

    /// The recorded days of a range, month by month through the cache.
    public func days(user uid: String, from: WorkDate, through: WorkDate) async throws -> [WorkDay] {
        guard from <= through else {
            throw WorkError(.invalidInput, "the range \(from)…\(through) ends before it starts")
        }
        var result: [WorkDay] = []
        var month = from.workMonth
        while month <= through.workMonth {
            let days = try await monthDays(user: uid, month: month)
            result.append(contentsOf: days.values.filter { $0.workDate >= from && $0.workDate <= through })
            month = month.next
        }
        return result.sorted { $0.workDate < $1.workDate }
    }

    /// Totals and a row per date over a range.
    public func report(
        user uid: String, from: WorkDate, through: WorkDate, splitAtMidnight: Bool = false
    ) async throws -> WorkReport {
        let settings = try await settings(user: uid)
        // Splitting at midnight can carry the previous day's work into the range.
        let days = try await days(user: uid, from: splitAtMidnight ? from.adding(days: -1) : from, through: through)
        // Days before the first record are not missed work; with no record at all, nothing is missed yet.
        let first = try await firstRecordedDate(user: uid) ?? WorkDate(clock.now, in: settings.zone).adding(days: 1)
        return WorkReport.build(
            uid: uid, from: from, through: through, days: days, settings: settings, now: clock.now,
            splitAtMidnight: splitAtMidnight, plannedFrom: first)
    }

    /// The user's first recorded day (one query, ordered by `workDate`), or nil when nothing is recorded.
    public func firstRecordedDate(user uid: String) async throws -> WorkDate? {
        let collection = try checkedCollection(uid)
        let snapshot = try await storage {
            try await collection.query.order(by: "workDate").limit(1).getDocuments()
        }
        return try snapshot.documents.first.flatMap { try decode(WorkDay.self, $0)?.workDate }
    }

    /// The week containing `date` (today by default), starting on the user's first weekday.
    public func week(user uid: String, containing date: WorkDate? = nil, splitAtMidnight: Bool = false) async throws
        -> WorkReport
    {
        let settings = try await settings(user: uid)
        let start = settings.weekStart(containing: date ?? WorkDate(clock.now, in: settings.zone))
        return try await report(
            user: uid, from: start, through: start.adding(days: 6), splitAtMidnight: splitAtMidnight)
    }

    /// A month (this month by default).
    public func month(user uid: String, _ month: WorkMonth? = nil, splitAtMidnight: Bool = false) async throws
        -> WorkReport
    {
        let settings = try await settings(user: uid)
        let month = month ?? WorkDate(clock.now, in: settings.zone).workMonth
        return try await report(user: uid, from: month.first, through: month.last, splitAtMidnight: splitAtMidnight)
    }

    /// Every user's totals for a month, from the month summaries (one document per user), by user id.
    public func team(month: WorkMonth) async throws -> [WorkTeamRow] {
        let now = clock.now
        let summaries = try await storage {
            // The team view's one query: month summaries of every user, through a collection-group index.
            let index = IndexDefinition(
                collectionID: "workMonths", scope: .collectionGroup, fields: [try .init("month")])
            if try await !store.indexes().contains(index) { try await store.declareIndex(index) }
            return try await store.collectionGroup("workMonths")
                .whereField("month", isEqualTo: .string(month.description))
                .getDocuments()
        }
        // Decoded by hand (a few fields of small maps), not through DocumentDecoder: the team view reads a document
        // per user, and the user documents' undo stacks are skipped instead of decoded.
        let decoded = try summaries.documents.compactMap { try WorkMonthSummary(snapshot: $0) }
        let users = try await storage {
            try await store.getDocuments(try decoded.map { try userReference($0.uid).path })
        }
        var settingsByUser: [String: WorkSettings] = [:]
        for snapshot in users {
            guard let value = snapshot.data?["settings"] else { continue }
            do {
                settingsByUser[snapshot.path.documentID] = try DocumentDecoder().decode(
                    WorkSettings.self, fromValue: value, path: snapshot.path)
            } catch {
                throw WorkError(
                    .storage, "\(snapshot.path) has settings that do not decode: \(error)", underlying: error)
            }
        }
        // Days before a user's first record are not missed work, as in their own report (one small query a user).
        var firstByUser: [String: WorkDate] = [:]
        for summary in decoded { firstByUser[summary.uid] = try await firstRecordedDate(user: summary.uid) }
        let dates = month.days.map { ($0, $0.description) }
        return decoded.map { summary in
            let settings = settingsByUser[summary.uid] ?? defaults
            let today = WorkDate(now, in: settings.zone)
            let first = firstByUser[summary.uid] ?? month.first
            var row = WorkTeamRow(
                uid: summary.uid, workedSeconds: 0, breakSeconds: 0, plannedSeconds: 0, overtimeSeconds: 0,
                daysWorked: 0)
            for (date, key) in dates {
                if let day = summary.days[key] {
                    let worked = day.worked(at: now)
                    row.workedSeconds += worked
                    row.breakSeconds += day.breaks(at: now)
                    row.plannedSeconds += day.plannedSeconds
                    if worked > 0 { row.daysWorked += 1 }
                } else if date <= today && date >= first {
                    row.plannedSeconds += settings.plannedSeconds(on: date)
                }
            }
            row.overtimeSeconds = row.workedSeconds - row.plannedSeconds
            return row
        }.sorted { $0.uid < $1.uid }
    }

    /// The history entries of the user's days since `date` (30 days ago by default), oldest first.
    public func log(user uid: String, since date: WorkDate? = nil) async throws -> [(
        date: WorkDate, entry: WorkHistoryEntry
    )] {
        let settings = try await settings(user: uid)
        let today = WorkDate(clock.now, in: settings.zone)
        let days = try await readDays(user: uid, from: date ?? today.adding(days: -30), through: today.adding(days: 1))
        return days.flatMap { day in day.history.map { (day.workDate, $0) } }.sorted {
            $0.entry.recordedAt < $1.entry.recordedAt
        }
    }

    private func checkedCollection(_ uid: String) throws -> CollectionReference {
        try userReference(uid).collection("workHistory")
    }
}
