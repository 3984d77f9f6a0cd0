import Logging
import Synchronization

/// How a call through the C ABI ended, as its waiting caller sees it.
enum PluginCallOutcome: Sendable {
    /// The plugin invoked the completion with a status and a response.
    case completed(status: Int32, response: [UInt8])
    /// The deadline passed first.
    case timedOut
}

/// The pending calls of every plugin engine in the process, and their deadlines.
///
/// A call's completion context is not a pointer but an id, `slot << 48 | serial`: `slot` names the engine (reused
/// only after its engine is destroyed), `serial` is never reused (48 bits: centuries at a million calls a second). A
/// completion that arrives twice, late, or for a call it was never given finds no pending entry and is logged and
/// ignored — a box pointer would be a use-after-free there. Deadlines are kept by one watchdog thread
/// (``PluginCallWatchdog``) that sleeps until the earliest deadline, so a call costs two dictionary operations under
/// a lock, not a timer.
///
/// One registry serves the whole process (``pluginCalls``) because a C completion carries only that id.
final class PluginCallRegistry: Sendable {
    private struct Pending {
        let continuation: UnsafeContinuation<PluginCallOutcome, Never>
        let deadline: ContinuousClock.Instant
        let operation: String
    }

    private struct EngineRecord {
        let label: String
        let logger: Logger
        /// Calls that timed out and have not completed since, by id: their operation names.
        var abandoned: [UInt64: String] = [:]
        /// Whether a call ever timed out: the engine must then never be destroyed.
        var wasAbandoned = false
    }

    private struct State {
        var engines: [UInt64: EngineRecord] = [:]
        var freeSlots: [UInt64] = []
        var nextSlot: UInt64 = 1
        var nextSerial: UInt64 = 1
        var pending: [UInt64: Pending] = [:]
        /// When the watchdog wakes next, if any call is pending.
        var watchdogWake: ContinuousClock.Instant?
    }

    private static let serialBits: UInt64 = 48
    private static let serialMask: UInt64 = (1 << serialBits) - 1
    private static let maximumSlot: UInt64 = (1 << (64 - serialBits)) - 1

    private let state = Mutex(State())
    private let watchdog = PluginCallWatchdog()

    /// Registers an engine; its calls are logged as `label` (e.g. "plugin X (/path) engine 'y'") through `logger`.
    func register(label: String, logger: Logger) throws -> UInt64 {
        try state.withLock { state in
            let slot: UInt64
            if let free = state.freeSlots.popLast() {
                slot = free
            } else {
                guard state.nextSlot <= Self.maximumSlot else {
                    throw PluginError(
                        .engineCreationFailed,
                        "cannot create \(label): \(Self.maximumSlot) plugin engines are alive in this process")
                }
                slot = state.nextSlot
                state.nextSlot += 1
            }
            state.engines[slot] = EngineRecord(label: label, logger: logger)
            return slot
        }
    }

    /// Forgets the engine in `slot` and returns `true` when it may be destroyed; returns `false` (and keeps it, to
    /// log late completions) when one of its calls ever timed out.
    func unregister(_ slot: UInt64) -> Bool {
        state.withLock { state in
            guard let record = state.engines[slot] else { return false }
            if record.wasAbandoned { return false }
            state.engines[slot] = nil
            state.freeSlots.append(slot)
            return true
        }
    }

    /// Whether a call of the engine in `slot` ever timed out.
    func wasAbandoned(_ slot: UInt64) -> Bool {
        state.withLock { $0.engines[slot]?.wasAbandoned ?? false }
    }

    /// Records a pending call of the engine in `slot` and returns its id, the completion context to pass to the
    /// plugin. `continuation` is resumed exactly once: by ``complete(_:status:response:)`` or at the deadline.
    func begin(
        slot: UInt64, operation: String, timeout: Duration, continuation: UnsafeContinuation<PluginCallOutcome, Never>
    ) -> UInt64 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let (id, earliest): (UInt64, Bool) = state.withLock { state in
            let serial = state.nextSerial
            state.nextSerial = serial >= Self.serialMask ? 1 : serial + 1
            let id = slot << Self.serialBits | serial
            state.pending[id] = Pending(continuation: continuation, deadline: deadline, operation: operation)
            if let wake = state.watchdogWake, wake <= deadline { return (id, false) }
            state.watchdogWake = deadline
            return (id, true)
        }
        if earliest { watchdog.wake(by: deadline) { [self] now in expire(now: now) } }
        return id
    }

    /// Delivers the completion of call `id`; a duplicate, late or unknown completion is logged and ignored.
    func complete(_ id: UInt64, status: Int32, response: UnsafeBufferPointer<UInt8>?) {
        let pending = state.withLock { $0.pending.removeValue(forKey: id) }
        if let pending {
            pending.continuation.resume(returning: .completed(status: status, response: response.map(Array.init) ?? []))
            return
        }
        let stray: (Logger, String)? = state.withLock { state in
            let slot = id >> Self.serialBits
            guard var record = state.engines[slot] else { return nil }
            let serial = id & Self.serialMask
            if let operation = record.abandoned.removeValue(forKey: id) {
                state.engines[slot] = record
                return (
                    record.logger,
                    "\(record.label) completed '\(operation)' (call #\(serial)) after it timed out; the response "
                        + "(status \(status)) is ignored"
                )
            }
            return (
                record.logger,
                "\(record.label) completed call #\(serial) again, or a call it was never given; the completion "
                    + "(status \(status)) is ignored"
            )
        }
        if let (logger, message) = stray { logger.warning("\(message)") }
    }

    /// Resumes the calls whose deadline passed as timed out, marks their engines abandoned, and returns the next
    /// deadline (the watchdog's next wake), if any call is still pending.
    private func expire(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let (expired, next): ([Pending], ContinuousClock.Instant?) = state.withLock { state in
            var expired: [Pending] = []
            var next: ContinuousClock.Instant?
            for (id, pending) in state.pending {
                if pending.deadline <= now {
                    state.pending[id] = nil
                    expired.append(pending)
                    let slot = id >> Self.serialBits
                    state.engines[slot]?.abandoned[id] = pending.operation
                    state.engines[slot]?.wasAbandoned = true
                } else if next.map({ pending.deadline < $0 }) ?? true {
                    next = pending.deadline
                }
            }
            state.watchdogWake = next
            return (expired, next)
        }
        for pending in expired { pending.continuation.resume(returning: .timedOut) }
        return next
    }
}

/// The process's one registry of pending plugin calls (see ``PluginCallRegistry`` for why there is one).
let pluginCalls = PluginCallRegistry()

/// The completion every host call passes to a plugin: its context is the call's id in ``pluginCalls``.
let pluginCallCompletion: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<UInt8>?, Int) -> Void = {
    context, status, response, length in
    guard let context else { return }
    let buffer = response.map { UnsafeBufferPointer(start: $0, count: max(0, length)) }
    pluginCalls.complete(UInt64(UInt(bitPattern: context)), status: status, response: buffer)
}
