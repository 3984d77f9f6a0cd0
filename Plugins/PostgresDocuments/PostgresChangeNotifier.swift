import Logging
import PostgresNIO
import Synchronization

/// Prompt wake-ups for followers of the change log: one pooled connection `LISTEN`s on the schema's channel (started
/// on the first wait, kept while the engine lives) and wakes every waiter when a commit from any server notifies a
/// sequence after the one it waits past. Waits always end at their timeout too, so a notification lost while the
/// listening connection reconnects only costs one timeout.
final class PostgresChangeNotifier: Sendable {
    private struct Waiter {
        var after: Int64
        var continuation: CheckedContinuation<Void, Never>
    }
    private struct State {
        var latest: Int64 = 0
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        var listener: Task<Void, Never>?
        var stopped = false
    }
    private let state = Mutex(State())
    private let client: PostgresClient
    private let channel: String
    private let logger: Logger

    init(client: PostgresClient, channel: String, logger: Logger) {
        self.client = client
        self.channel = channel
        self.logger = logger
    }

    /// Returns when a commit after `sequence` has been notified, or after `timeout`.
    func wait(after sequence: Int64, timeout: Duration) async {
        startListening()
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            self.resume(id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.latest > sequence || state.stopped { return true }
                    state.waiters[id] = Waiter(after: sequence, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            resume(id)
        }
        timer.cancel()
    }

    private func resume(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
    }

    private func notified(_ sequence: Int64) {
        let ready = state.withLock { state -> [Waiter] in
            state.latest = max(state.latest, sequence)
            let ready = state.waiters.filter { $0.value.after < sequence }
            for id in ready.keys { state.waiters[id] = nil }
            return Array(ready.values)
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    private func startListening() {
        state.withLock { state in
            guard state.listener == nil, !state.stopped else { return }
            state.listener = Task { [self] in await listen() }
        }
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: channel) { notifications in
                        // Listening now: a commit that notified before is in the log; wake everyone to look.
                        wakeAll()
                        for try await notification in notifications {
                            if let sequence = Int64(notification.payload) { notified(sequence) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("postgres LISTEN \(channel) failed, retrying: \(error)")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func wakeAll() {
        let all = state.withLock { state -> [Waiter] in
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in all { waiter.continuation.resume() }
    }

    func stop() async {
        let listener = state.withLock { state -> Task<Void, Never>? in
            state.stopped = true
            defer { state.listener = nil }
            return state.listener
        }
        wakeAll()
        listener?.cancel()
        await listener?.value
    }
}
