import Foundation
import Synchronization

/// An event as `log` captured it, before the background writer processes it.
struct PendingEvent: Sendable {
    /// An event, or a marker the writer handles in order with the events around it.
    enum Kind: Sendable {
        case event
        /// ``AnalyticsManager/reset()``: the current session ends.
        case reset(collecting: Bool)
    }

    var name: String
    var parameters: [String: String]
    var timestamp: Date
    /// The identity when it was logged (set by the inbox).
    var identity = AnalyticsIdentity(anonymousID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    var kind = Kind.event

    init(name: String, parameters: [String: String], timestamp: Date) {
        self.name = name
        self.parameters = parameters
        self.timestamp = timestamp
    }
}

/// A request to the background writer, answered once it has been carried out.
enum InboxCommand: Sendable {
    case persist(CheckedContinuation<Void, any Error>)
    case flush(CheckedContinuation<Void, any Error>)
    /// Store the consent; `.denied` also purges the queue and forgets the session.
    case consent(AnalyticsConsent, CheckedContinuation<Void, any Error>)
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
        var consent: AnalyticsConsent
        var identity: AnalyticsIdentity
        /// Whether ``identity`` changed since the writer last took it (to be persisted).
        var identityChanged = false
        /// The session of the last event the writer processed.
        var sessionID: UUID?
    }

    let state: Mutex<State>
    let capacity: Int
    let signals: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init(capacity: Int, collecting: Bool, consent: AnalyticsConsent, identity: AnalyticsIdentity, identityIsNew: Bool) {
        self.capacity = capacity
        var initial = State(collecting: collecting, consent: consent, identity: identity)
        initial.identityChanged = identityIsNew
        state = Mutex(initial)
        (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Buffers `event` unless collection is off, the manager stopped or the buffer is full (each counted).
    func offer(_ event: PendingEvent) {
        var event = event
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
            event.identity = state.identity
            state.events.append(event)
            return state.events.count == 1
        }
        if wake { continuation.yield() }
    }

    /// Replaces the identity (persisted by the writer's next cycle); events offered from now on carry it.
    func setIdentity(_ identity: AnalyticsIdentity) {
        state.withLock { state in
            state.identity = identity
            state.identityChanged = true
        }
        continuation.yield()
    }

    /// Queues a reset marker (carrying the identity before it, even past the buffer's capacity) and replaces the
    /// identity, atomically; nothing after ``AnalyticsManager/shutdown()``.
    func reset(to identity: AnalyticsIdentity, at timestamp: Date) {
        state.withLock { state in
            guard !state.stopped else { return }
            var marker = PendingEvent(name: "", parameters: [:], timestamp: timestamp)
            marker.kind = .reset(collecting: state.collecting)
            marker.identity = state.identity
            state.events.append(marker)
            state.identity = identity
            state.identityChanged = true
        }
        continuation.yield()
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

    /// Takes every buffered event and pending command, and the identity if it changed, atomically.
    func take() -> (events: [PendingEvent], commands: [InboxCommand], identity: AnalyticsIdentity?) {
        state.withLock { state in
            defer {
                state.events.removeAll(keepingCapacity: true)
                state.commands.removeAll()
                state.identityChanged = false
            }
            return (state.events, state.commands, state.identityChanged ? state.identity : nil)
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
