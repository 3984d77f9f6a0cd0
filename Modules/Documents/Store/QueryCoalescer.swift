import Synchronization

/// Shares one execution among identical calls (see ``QueryCoalescing``).
///
/// A call names its key and the store's commit sequence when it starts. It joins the execution running for that key
/// when that execution started at the same sequence or a later one — no write of this store completed in between, so
/// the shared result is as fresh as a read of its own — else it starts a new execution. With a reuse window, a
/// finished result answers the calls of the next `window` on the same condition.
///
/// The execution runs in its own task: a cancelled caller stops waiting at once and leaves the others waiting; the
/// execution is cancelled only when every caller waiting for it is. An error reaches every caller that waits.
final class QueryCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// A call's result, and whether it came from an execution another call started (or a reused result).
    struct Outcome: Sendable {
        var value: Value
        var shared: Bool
    }

    private struct Flight {
        var key: Key
        var sequence: Int64
        var leader: UInt64
        var waiters: [UInt64: CheckedContinuation<Outcome, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    private struct Finished {
        var sequence: Int64
        var value: Value
        var at: ContinuousClock.Instant
    }

    private struct State {
        var flights: [UInt64: Flight] = [:]
        /// The newest flight of each key: the one new calls may join.
        var current: [Key: UInt64] = [:]
        var finished: [Key: Finished] = [:]
        var nextID: UInt64 = 0

        mutating func newID() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    /// How long a finished result is reused (zero: never).
    let window: Duration
    /// The most finished results kept for reuse.
    let capacity: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    /// A coalescer reusing finished results for `window` (at most `capacity` of them), on the clock `now`.
    init(window: Duration, capacity: Int = 256, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.window = window
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// Executions running now (for tests).
    var runningCount: Int { state.withLock { $0.flights.count } }

    /// Calls waiting for an execution another call started (for tests).
    var joinedCount: Int {
        state.withLock { state in
            state.flights.values.reduce(0) { sum, flight in
                sum + flight.waiters.keys.filter { $0 != flight.leader }.count
            }
        }
    }

    /// Runs `execute` for `key`, or shares the result of an identical execution that began at `sequence` or later.
    func run(
        _ key: Key, sequence: Int64, _ execute: @escaping @Sendable () async throws -> Value
    ) async throws -> Outcome {
        let waiter = state.withLock { $0.newID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
                let reused = state.withLock { state -> Value? in
                    if let finished = state.finished[key] {
                        if finished.sequence >= sequence, now() - finished.at <= window { return finished.value }
                        state.finished[key] = nil
                    }
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    if let id = state.current[key], var flight = state.flights[id], flight.sequence >= sequence {
                        flight.waiters[waiter] = continuation
                        state.flights[id] = flight
                        return nil
                    }
                    let id = state.newID()
                    var flight = Flight(key: key, sequence: sequence, leader: waiter)
                    flight.waiters[waiter] = continuation
                    flight.task = Task {
                        do {
                            self.complete(id, with: .success(try await execute()))
                        } catch {
                            self.complete(id, with: .failure(error))
                        }
                    }
                    state.flights[id] = flight
                    state.current[key] = id
                    return nil
                }
                if let reused { continuation.resume(returning: Outcome(value: reused, shared: true)) }
            }
        } onCancel: {
            leave(waiter)
        }
    }

    /// A cancelled caller stops waiting; an execution nobody waits for any more is cancelled.
    private func leave(_ waiter: UInt64) {
        let (continuation, task) = state.withLock {
            state -> (CheckedContinuation<Outcome, any Error>?, Task<Void, Never>?) in
            guard let (id, flight) = state.flights.first(where: { $0.value.waiters[waiter] != nil }) else {
                return (nil, nil)
            }
            var updated = flight
            let continuation = updated.waiters.removeValue(forKey: waiter)
            guard updated.waiters.isEmpty else {
                state.flights[id] = updated
                return (continuation, nil)
            }
            state.flights[id] = nil
            if state.current[flight.key] == id { state.current[flight.key] = nil }
            return (continuation, flight.task)
        }
        task?.cancel()
        continuation?.resume(throwing: CancellationError())
    }

    private func complete(_ id: UInt64, with result: Result<Value, any Error>) {
        let finishedAt = now()
        let flight = state.withLock { state -> Flight? in
            guard let flight = state.flights.removeValue(forKey: id) else { return nil }
            if state.current[flight.key] == id { state.current[flight.key] = nil }
            if window > .zero, case .success(let value) = result {
                if state.finished.count >= capacity {
                    state.finished = state.finished.filter { finishedAt - $0.value.at <= window }
                    if state.finished.count >= capacity { state.finished.removeAll(keepingCapacity: true) }
                }
                state.finished[flight.key] = Finished(sequence: flight.sequence, value: value, at: finishedAt)
            }
            return flight
        }
        guard let flight else { return }
        for (waiter, continuation) in flight.waiters {
            continuation.resume(with: result.map { Outcome(value: $0, shared: waiter != flight.leader) })
        }
    }
}
