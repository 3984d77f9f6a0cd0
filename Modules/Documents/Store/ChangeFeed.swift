import Synchronization

/// Something the change feed delivers change-log records to.
protocol ChangeListener: Actor {
    func apply(_ records: [ChangeRecord]) async
    /// The changes after the listener's last ones were pruned from the log: take a fresh snapshot (the state at
    /// `sequence` or later) and report what differs; records after `sequence` follow.
    func resync(through sequence: Int64) async
    /// The store closed: end the stream.
    func finish() async
}

/// A wake-up signal that remembers a signal sent while nobody waits; a signal wakes every waiter.
final class Waker: Sendable {
    private struct State {
        var pending = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func signal() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.waiters.isEmpty {
                state.pending = true
                return []
            }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.pending {
                    state.pending = false
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

/// Follows the engine's change log and hands new records to the listeners: woken at once by this process's commits,
/// and by a timer so that commits of other processes on the same file are seen within the poll interval.
actor ChangeFeed {
    private let engine: any DocumentEngine
    private let pollInterval: Duration
    private let waker = Waker()
    private var listeners: [UInt64: any ChangeListener] = [:]
    private var nextID: UInt64 = 1
    private var lastSequence: Int64 = 0
    private var loop: Task<Void, Never>?
    private var timer: Task<Void, Never>?
    private var stopped = false

    init(engine: any DocumentEngine, pollInterval: Duration) {
        self.engine = engine
        self.pollInterval = pollInterval
    }

    /// Wakes the feed (a local commit happened).
    nonisolated func notifyCommit() { waker.signal() }

    /// Adds a listener; returns its id and the sequence after which it will receive records.
    func register(_ listener: any ChangeListener) async throws -> (UInt64, Int64) {
        if stopped {
            throw DocumentsError(.unsupported, "the document store is closed; listeners cannot start")
        }
        if loop == nil {
            lastSequence = try await engine.lastSequence()
            start()
        }
        let id = nextID
        nextID += 1
        listeners[id] = listener
        return (id, lastSequence)
    }

    func unregister(_ id: UInt64) {
        listeners[id] = nil
        if listeners.isEmpty { halt() }
    }

    /// Stops for good (the store closes) and ends every listener's stream.
    func stop() async {
        stopped = true
        let ended = listeners.values
        listeners.removeAll()
        halt()
        for listener in ended { await listener.finish() }
    }

    private func start() {
        let waker = waker
        let interval = pollInterval
        let engine = engine
        timer = Task { [weak self] in
            while !Task.isCancelled, let seen = await self?.lastSequence {
                // Sleeps for the interval, or returns at once where the engine is told of commits from elsewhere.
                await engine.waitForChanges(after: seen, timeout: interval)
                waker.signal()
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        loop = Task { await self.run() }
    }

    private func halt() {
        loop?.cancel()
        timer?.cancel()
        loop = nil
        timer = nil
        waker.signal()
    }

    private func run() async {
        while !Task.isCancelled {
            await waker.wait()
            if Task.isCancelled { return }
            do {
                while true {
                    let records = try await engine.changes(after: lastSequence, limit: 1000)
                    guard let last = records.last else { break }
                    lastSequence = last.sequence
                    for listener in listeners.values {
                        await listener.apply(records)
                    }
                    if records.count < 1000 { break }
                }
            } catch let error as DocumentsError where error.code == .resyncRequired {
                // Fell behind the log's retained horizon: start again from now, each listener from a fresh snapshot.
                guard let sequence = try? await engine.lastSequence() else { continue }
                lastSequence = sequence
                for listener in listeners.values { await listener.resync(through: sequence) }
                waker.signal()
            } catch {
                // A transient engine error: try again at the next wake-up.
                continue
            }
        }
    }
}
