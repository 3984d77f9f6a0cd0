import PostgresNIO
import Synchronization

/// The engine's watch over its connections, one check every quarter second while anything is watched:
///
/// - **Leases.** A task waiting for a connection longer than the connect timeout is cancelled: postgres-nio's pool
///   would keep it waiting until its circuit breaker opens, a minute later.
/// - **Operations.** An operation whose connection closed under it, and that has not ended within ``grace`` after,
///   fails with ``PostgresConnectionClosed``. postgres-nio hands a query to its channel without a promise, so a query
///   sent on a connection that is closing (the server went away as the connection was leased; a commit failed as it
///   ended, after its answer, and the client closed the connection) is never answered nor failed: it would wait
///   forever. The operation runs in a task of its own, so that its caller can be answered without it.
///
/// Each costs two short critical sections.
final class ConnectionWatchdog: @unchecked Sendable {
    // @unchecked: `UnsafeCurrentTask`s are only touched under `state`, and only while their task waits in `leased`'s
    // counterpart (registered before the lease, removed when it ends), so they are alive when cancelled.
    private struct State {
        var next = 0
        var waiting: [Int: (since: ContinuousClock.Instant, task: TaskHandle)] = [:]
        var expired: Set<Int> = []
        var operations: [Int: Operation] = [:]
    }
    private struct Operation {
        let connection: PostgresConnection
        let fail: @Sendable (any Error) -> Void
        var closedSince: ContinuousClock.Instant?
    }
    /// How long an operation may go on after its connection closed: postgres-nio fails the queries it knows of at
    /// once; only one it never received is still waiting after this.
    static let grace: Duration = .seconds(1)
    private let state = Mutex(State())
    private let leaseTimeout: Duration
    private let monitor = Mutex<Task<Void, Never>?>(nil)

    init(leaseTimeout: Duration) {
        self.leaseTimeout = leaseTimeout
    }

    /// Registers the current task as waiting for a connection; returns its ticket.
    func waiting() -> Int {
        let task = TaskHandle(task: withUnsafeCurrentTask { $0 })
        let ticket = state.withLock { state in
            state.next += 1
            state.waiting[state.next] = (ContinuousClock.now, task)
            return state.next
        }
        startMonitor()
        return ticket
    }

    /// The lease ended (it got a connection, or failed); returns whether the watchdog cancelled it for waiting too
    /// long.
    @discardableResult
    func leased(_ ticket: Int) -> Bool {
        state.withLock { state in
            state.waiting[ticket] = nil
            return state.expired.remove(ticket) != nil
        }
    }

    /// `body` on `connection`, answered with ``PostgresConnectionClosed`` when the connection closes and `body` has
    /// not ended ``grace`` later. `body` runs in a task of its own, cancelled when the caller's task is; a `body`
    /// failed that way is cancelled and left to end on its own (never, if postgres-nio lost its query).
    func guarding<T: Sendable>(
        _ connection: PostgresConnection, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let call = GuardedCall<T>()
        let ticket = state.withLock { state in
            state.next += 1
            state.operations[state.next] = Operation(connection: connection, fail: { call.finish(.failure($0)) })
            return state.next
        }
        defer { _ = state.withLock { $0.operations.removeValue(forKey: ticket) } }
        startMonitor()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.start(continuation) { try await body(connection) }
            }
        } onCancel: {
            call.cancel()
        }
    }

    private func startMonitor() {
        monitor.withLock { monitor in
            if monitor == nil { monitor = Task { [weak self] in await self?.watch() } }
        }
    }

    private func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            check(now: .now)
        }
    }

    /// One round: cancels the leases waiting too long, and fails the operations whose connection closed under them
    /// longer than ``grace`` ago.
    func check(now: ContinuousClock.Instant) {
        let failed = state.withLock { state -> [@Sendable (any Error) -> Void] in
            for (ticket, entry) in state.waiting where now - entry.since > leaseTimeout {
                entry.task.task?.cancel()
                state.waiting[ticket] = nil
                state.expired.insert(ticket)
            }
            var failed: [@Sendable (any Error) -> Void] = []
            for (ticket, operation) in state.operations where operation.connection.isClosed {
                if let since = operation.closedSince {
                    if now - since >= Self.grace {
                        failed.append(operation.fail)
                        state.operations[ticket] = nil
                    }
                } else {
                    state.operations[ticket]?.closedSince = now
                }
            }
            return failed
        }
        for fail in failed { fail(PostgresConnectionClosed()) }
    }

    func stop() {
        monitor.withLock { $0?.cancel() }
    }

    private struct TaskHandle: @unchecked Sendable {
        let task: UnsafeCurrentTask?
    }
}

/// One guarded operation: its caller's continuation, resumed exactly once, by the operation's own task or by the
/// watchdog, whichever comes first.
private final class GuardedCall<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var task: Task<Void, Never>?
        var cancelled = false
    }
    private let state = Mutex(State())

    func start(
        _ continuation: CheckedContinuation<T, any Error>, _ body: @escaping @Sendable () async throws -> T
    ) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { return continuation.resume(with: early) }
        let task = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            finish(result)
        }
        let cancel = state.withLock { state in
            state.task = task
            return state.cancelled || state.result != nil
        }
        if cancel { task.cancel() }
    }

    /// The first call resumes the caller (a later one is ignored) and cancels the operation's task if still running.
    func finish(_ result: Result<T, any Error>) {
        let (continuation, task) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
            guard state.result == nil else { return (nil, nil) }
            state.result = result
            defer { state.continuation = nil }
            return (state.continuation, state.task)
        }
        continuation?.resume(with: result)
        task?.cancel()
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
