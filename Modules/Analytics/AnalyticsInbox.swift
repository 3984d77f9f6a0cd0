import Foundation
import Synchronization

/// An event as `log` captured it, before the background writer processes it.
struct PendingEvent: Sendable {
    var name: String
    var parameters: [String: String]
    var timestamp: Date
}

/// A request to the background writer, answered once it has been carried out.
enum InboxCommand: Sendable {
    case persist(CheckedContinuation<Void, any Error>)
    case flush(CheckedContinuation<Void, any Error>)
    case purge(CheckedContinuation<Void, any Error>)
    case stop(CheckedContinuation<Void, any Error>)
}

/// The bounded buffer between `log` and the background writer, with the manager's statistics under the same lock.
final class AnalyticsInbox: Sendable {
    struct State {
        var events: [PendingEvent] = []
        var commands: [InboxCommand] = []
        var collecting: Bool
        var stopped = false
        var statistics = AnalyticsStatistics()
    }

    let state: Mutex<State>
    let capacity: Int
    let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(capacity: Int, collecting: Bool) {
        self.capacity = capacity
        state = Mutex(State(collecting: collecting))
        (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Buffers `event` unless collection is off, the manager stopped or the buffer is full (each counted).
    func offer(_ event: PendingEvent) {
        let wake = state.withLock { state -> Bool in
            guard !state.stopped else {
                state.statistics.droppedAfterShutdown += 1
                return false
            }
            guard state.collecting else {
                state.statistics.droppedOptedOut += 1
                return false
            }
            state.statistics.logged += 1
            guard state.events.count < capacity else {
                state.statistics.droppedBufferFull += 1
                return false
            }
            state.events.append(event)
            return state.events.count == 1
        }
        if wake { continuation.yield() }
    }

    /// Queues `command` for the writer; false (and nothing queued) when the manager has stopped.
    func send(_ command: InboxCommand) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if case .stop = command { state.stopped = true }
            state.commands.append(command)
            return true
        }
        if accepted { continuation.yield() }
        return accepted
    }

    /// Takes every buffered event and pending command, atomically.
    func take() -> (events: [PendingEvent], commands: [InboxCommand]) {
        state.withLock { state in
            defer {
                state.events.removeAll(keepingCapacity: true)
                state.commands.removeAll()
            }
            return (state.events, state.commands)
        }
    }

    func wake() { continuation.yield() }

    /// Ends the writer's loop without waiting (the manager was deinitialised).
    func finish() {
        state.withLock { $0.stopped = true }
        continuation.finish()
    }

    func update(_ body: (inout AnalyticsStatistics) -> Void) {
        state.withLock { body(&$0.statistics) }
    }
}
