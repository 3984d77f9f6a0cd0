import Synchronization

/// The SQLite store's recency ticks, and the accesses (and expired misses) its reads recorded that are not yet written
/// to the database: a hit costs a dictionary insert here instead of a write transaction.
final class CacheAccessLog: Sendable {
    /// Pending accesses beyond which a read writes them.
    static let flushThreshold = 4096

    private struct State {
        var tick: Int64
        var accesses: [String: Int64] = [:]
        var expired: [String: Int64] = [:]
    }

    private let state: Mutex<State>

    /// Starts counting after `lastTick` (the largest `access` in the database).
    init(lastTick: Int64) {
        state = Mutex(State(tick: lastTick))
    }

    /// A tick after every tick handed out so far.
    func nextTick() -> Int64 {
        state.withLock { state in
            state.tick += 1
            return state.tick
        }
    }

    /// Records a hit on the entry under `key`; whether enough accesses are pending to write them now. (By key, not
    /// row id: row ids are reused, and a stale access must not land on another key's entry.)
    func recordHit(_ key: String) -> Bool {
        state.withLock { state in
            state.tick += 1
            state.accesses[key] = state.tick
            return state.accesses.count >= Self.flushThreshold
        }
    }

    /// How many accesses and expired keys are pending.
    var pendingCount: Int { state.withLock { $0.accesses.count + $0.expired.count } }

    /// Records that `key` was found expired at `now`, to be deleted by the next write.
    func recordExpired(_ key: String, now: Int64) {
        state.withLock { $0.expired[key] = now }
    }

    /// Takes the pending accesses and expired keys.
    func drain() -> (accesses: [String: Int64], expired: [String: Int64]) {
        state.withLock { state in
            defer {
                state.accesses = [:]
                state.expired = [:]
            }
            return (state.accesses, state.expired)
        }
    }
}
