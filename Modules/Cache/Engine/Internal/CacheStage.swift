import Synchronization

/// Entries a write-behind ``SQLiteCacheStore`` accepted and has not committed yet.
///
/// Reads look here before the database. A write transaction takes a ``snapshot()`` of everything staged, writes it
/// first, and after its commit ``committed(_:)`` drops the entries it wrote — unless they were staged again meanwhile
/// (a newer version stays for the next transaction).
final class CacheStage: Sendable {
    /// A staged entry: the entry, its encoded metadata, its value file (for a value over the inline limit, already
    /// written and synced) and its version.
    struct Staged: Sendable {
        var entry: CacheEntry
        var metadata: [UInt8]
        var file: String?
        var version: UInt64
    }

    private struct State {
        var entries: [String: Staged] = [:]
        var bytes = 0
        var version: UInt64 = 0
        /// Value files of staged entries replaced before they were written: no row will name them once the next
        /// transaction has committed.
        var replacedFiles: [String] = []
        /// Whether a timed flush is on its way.
        var flushScheduled = false
    }

    private let state = Mutex(State())

    /// Whether nothing is staged.
    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// Stages `entry` (replacing any staged under its key); how many entries and bytes are staged now, and whether the
    /// caller is the one to schedule a timed flush.
    func put(_ entry: CacheEntry, metadata: [UInt8], file: String?) -> (count: Int, bytes: Int, schedule: Bool) {
        state.withLock { state in
            state.version &+= 1
            let staged = Staged(entry: entry, metadata: metadata, file: file, version: state.version)
            if let old = state.entries.updateValue(staged, forKey: entry.key) {
                state.bytes -= old.entry.cost
                if let file = old.file { state.replacedFiles.append(file) }
            }
            state.bytes += entry.cost
            let schedule = !state.flushScheduled
            state.flushScheduled = true
            return (state.entries.count, state.bytes, schedule)
        }
    }

    /// The entry staged under `key`, if any.
    func entry(forKey key: String) -> CacheEntry? {
        state.withLock { $0.entries[key]?.entry }
    }

    /// Everything staged, in the order it was staged, and the value files staged entries no longer use.
    func snapshot() -> (entries: [Staged], replacedFiles: [String]) {
        state.withLock { state in
            let files = state.replacedFiles
            state.replacedFiles = []
            return (state.entries.values.sorted { $0.version < $1.version }, files)
        }
    }

    /// Drops the entries of a committed snapshot that were not staged again since.
    func committed(_ written: [Staged]) {
        state.withLock { state in
            for staged in written where state.entries[staged.entry.key]?.version == staged.version {
                state.entries[staged.entry.key] = nil
                state.bytes -= staged.entry.cost
            }
        }
    }

    /// Marks the timed flush as started: the next ``put(_:metadata:file:)`` schedules another.
    func flushStarted() {
        state.withLock { $0.flushScheduled = false }
    }

    /// After a timed flush failed: whether its caller schedules the retry (something is still staged and no later
    /// store has scheduled a flush of its own).
    func claimRetry() -> Bool {
        state.withLock { state in
            guard !state.entries.isEmpty, !state.flushScheduled else { return false }
            state.flushScheduled = true
            return true
        }
    }
}
