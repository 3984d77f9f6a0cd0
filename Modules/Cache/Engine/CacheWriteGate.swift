import Synchronization

/// A FIFO mutual-exclusion gate for async callers: the SQLite store's writes of this process take it so that only one
/// at a time reaches the writer connection, and a write that runs synchronously on its caller's thread never waits
/// there behind another (it waits here, suspended). The same shape as the Documents engine's `AsyncGate`.
final class CacheWriteGate: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Takes the gate, suspending (FIFO) while another caller holds it.
    func lock() async {
        if state.withLock({ state in
            if state.locked { return false }
            state.locked = true
            return true
        }) {
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if !state.locked {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    /// Releases the gate to the longest waiter, if any.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
