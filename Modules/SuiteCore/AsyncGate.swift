import Synchronization

/// An async mutual-exclusion gate (FIFO) for this package's modules: a waiter is suspended, never blocking a thread.
/// Documents' transactions that lost a conflict retry one at a time through one, and the SQLite engines (documents and
/// cache) let one write at a time reach their writer connection, so a write run on its caller's thread never waits
/// there behind another.
package final class AsyncGate: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// An open gate.
    package init() {}

    /// Set while the current task runs inside a gated transaction attempt.
    @TaskLocal package static var held = false

    /// Whether someone holds or waits for the gate.
    package var isBusy: Bool { state.withLock { $0.locked } }

    /// Takes the gate if it is free, without suspending.
    package func tryLock() -> Bool {
        state.withLock { state in
            if state.locked { return false }
            state.locked = true
            return true
        }
    }

    /// Takes the gate, suspending (FIFO) while another caller holds it.
    package func lock() async {
        if tryLock() { return }
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
    package func unlock() {
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
