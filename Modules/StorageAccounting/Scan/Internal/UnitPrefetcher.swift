import Foundation

/// Walks and maps a scan's units, in order, on a thread of its own, ahead of the index's writer that inserts them:
/// the walk (system calls) and the inserts (SQLite) each take a core. Between them, a queue of at most
/// ``capacity`` chunks (``ScanUnitWalk/chunkFiles`` files each) bounds the memory.
///
/// The writer calls ``take(_:_:)`` for each unit it commits. Either side failing stops both: an error of the walk
/// reaches the writer through the queue (its transaction rolls back), and the scanner calls ``stop()`` when a commit
/// fails or the scan is cancelled, which ends the walk and wakes a writer waiting for a chunk. The scanner awaits
/// ``finished()`` before closing the root's descriptor the thread reads.
final class UnitPrefetcher: @unchecked Sendable {
    // @unchecked: `state` is only touched under `condition`.
    /// What the thread hands over.
    private enum Element {
        /// A chunk of the unit at this position of the plan.
        case chunk(Int, MappedChunk)
        /// The unit at this position is complete.
        case end(Int, UnitOutcome)
        /// The walk failed.
        case failed(any Error)
    }

    private struct State {
        var queue: [Element] = []
        var head = 0
        var queuedChunks = 0
        /// The position in `units` of the next unit the writer may take.
        var next = 0
        var stopped = false
        var exited = false
        var joiner: CheckedContinuation<Void, Never>?
    }

    let units: [ScanUnit]
    let capacity: Int
    private let walkUnit:
        @Sendable (ScanUnit, _ shouldStop: () -> Bool, _ deliver: (MappedChunk) throws -> Void) throws
            -> UnitOutcome
    private let condition = NSCondition()
    private var state = State()

    /// A prefetcher of `units` through `walkUnit` (``ScanUnitWalk/walk(_:rootFD:mapper:shouldStop:deliver:)`` in a
    /// scan; any walk in tests).
    init(
        units: [ScanUnit], capacity: Int = 8,
        walkUnit:
            @escaping @Sendable (ScanUnit, _ shouldStop: () -> Bool, _ deliver: (MappedChunk) throws -> Void)
            throws -> UnitOutcome
    ) {
        self.units = units
        self.capacity = max(1, capacity)
        self.walkUnit = walkUnit
    }

    /// A prefetcher walking `units` below `rootFD` with `mapper`, stopping when `shouldStop` says so.
    convenience init(
        units: [ScanUnit], rootFD: Int32, mapper: ItemMapper, shouldStop: @escaping @Sendable () -> Bool
    ) {
        self.init(units: units) { unit, stop, deliver in
            try ScanUnitWalk.walk(
                unit, rootFD: rootFD, mapper: mapper, shouldStop: { stop() || shouldStop() }, deliver: deliver)
        }
    }

    /// Starts the thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "suite.storage.walk"
        thread.start()
    }

    /// Ends the walk (at its next check, every 256 entries or chunk) and wakes a writer waiting in ``take(_:_:)``,
    /// which then throws `CancellationError`.
    func stop() {
        condition.withLock {
            state.stopped = true
            condition.broadcast()
        }
    }

    /// Returns once the thread has ended.
    func finished() async {
        await withCheckedContinuation { continuation in
            let exited = condition.withLock {
                if state.exited { return true }
                state.joiner = continuation
                return false
            }
            if exited { continuation.resume() }
        }
    }

    /// Hands `unit`'s chunks to `body` as the thread walks them, and returns the unit's outcome; `nil` when the thread
    /// does not walk `unit` ahead (not in its plan, or before the units already taken): then the caller walks it.
    ///
    /// - Throws: what `body` throws; the walk's error; `CancellationError` after ``stop()``.
    func take(_ unit: ScanUnit, _ body: (MappedChunk) throws -> Void) throws -> UnitOutcome? {
        guard
            let position = condition.withLock({ () -> Int? in
                guard let found = units[min(state.next, units.count)...].firstIndex(of: unit) else { return nil }
                state.next = found + 1
                return found
            })
        else { return nil }
        while true {
            switch try pop(for: position) {
            case .chunk(_, let chunk): try body(chunk)
            case .end(_, let outcome): return outcome
            case .failed(let error): throw error
            }
        }
    }

    /// The next element of the unit at `position`, skipping those of earlier units; waits for one.
    private func pop(for position: Int) throws -> Element {
        try condition.withLock {
            while true {
                if state.stopped { throw CancellationError() }
                if state.head < state.queue.count {
                    let element = state.queue[state.head]
                    state.head += 1
                    if state.head > 64, state.head * 2 > state.queue.count {
                        state.queue.removeFirst(state.head)
                        state.head = 0
                    }
                    switch element {
                    case .chunk(let at, _):
                        state.queuedChunks -= 1
                        condition.broadcast()
                        if at < position { continue }
                    case .end(let at, _):
                        if at < position { continue }
                    case .failed: break
                    }
                    return element
                }
                if state.exited { throw CancellationError() }
                condition.wait()
            }
        }
    }

    /// Appends `element`, waiting while the queue is full.
    private func push(_ element: Element) throws {
        try condition.withLock {
            if case .chunk = element {
                while state.queuedChunks >= capacity, !state.stopped { condition.wait() }
                state.queuedChunks += 1
            }
            if state.stopped { throw CancellationError() }
            state.queue.append(element)
            condition.broadcast()
        }
    }

    private var isStopped: Bool { condition.withLock { state.stopped } }

    /// The thread: every unit in order, then the exit signal.
    private func run() {
        for (position, unit) in units.enumerated() {
            do {
                let outcome = try walkUnit(unit, { isStopped }) { chunk in try push(.chunk(position, chunk)) }
                try push(.end(position, outcome))
            } catch {
                if !(error is CancellationError) || !isStopped { try? push(.failed(error)) }
                break
            }
        }
        let joiner = condition.withLock {
            state.exited = true
            condition.broadcast()
            defer { state.joiner = nil }
            return state.joiner
        }
        joiner?.resume()
    }
}
