import Synchronization

/// Months of work days kept in memory, keyed by user and month (seed 004's `WorkInfoManager`), without a singleton:
/// each ``WorkTracker`` owns one.
///
/// A month is read from the store once; the tracker's own changes update their day in place, and a write to a cached
/// day by any other writer of the same store (another tracker, Sync) marks just that day stale — the next read of the
/// month reads that day again, nothing else.
public final class WorkMonthCache: Sendable {
    /// A user's month.
    public struct Key: Sendable, Hashable {
        /// The user.
        public var uid: String
        /// The month.
        public var month: WorkMonth
    }

    private struct Entry {
        var days: [WorkDate: WorkDay]
        var stale: Set<WorkDate> = []
    }

    private let entries = Mutex<[Key: Entry]>([:])

    /// Creates an empty cache.
    public init() {}

    /// The cached days of a month and the days to read again, or nil when the month is not cached.
    func lookup(_ key: Key) -> (days: [WorkDate: WorkDay], stale: Set<WorkDate>)? {
        entries.withLock { entries in entries[key].map { ($0.days, $0.stale) } }
    }

    /// Keeps a month read from the store.
    func store(_ key: Key, days: [WorkDate: WorkDay]) {
        entries.withLock { $0[key] = Entry(days: days) }
    }

    /// Replaces days read again (nil: the day no longer exists).
    func refresh(_ key: Key, _ days: [WorkDate: WorkDay?]) {
        entries.withLock { entries in
            guard var entry = entries[key] else { return }
            for (date, day) in days {
                entry.days[date] = day
                entry.stale.remove(date)
            }
            entries[key] = entry
        }
    }

    /// Updates one day in place, if its month is cached.
    func apply(uid: String, date: WorkDate, _ day: WorkDay?) {
        refresh(Key(uid: uid, month: date.workMonth), [date: day])
    }

    /// Marks one day stale, if its month is cached.
    func invalidate(uid: String, date: WorkDate) {
        entries.withLock { entries in
            let key = Key(uid: uid, month: date.workMonth)
            entries[key]?.stale.insert(date)
        }
    }

    /// Forgets everything.
    public func removeAll() { entries.withLock { $0.removeAll() } }

    /// How many months are cached.
    public var count: Int { entries.withLock { $0.count } }
}
