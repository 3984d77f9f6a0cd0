import Synchronization

/// Whether a store's data is only a local copy not yet confirmed by its server (``DocumentStore/isFromCache``), and
/// the streams that follow it.
final class SourceState: Sendable {
    private struct State {
        var isFromCache = false
        var watchers: [UInt64: AsyncStream<Bool>.Continuation] = [:]
        var nextID: UInt64 = 0
        var finished = false
    }

    private let state = Mutex(State())

    var isFromCache: Bool { state.withLock { $0.isFromCache } }

    /// Sets the state; watchers get it when it changes. Yielding under the lock keeps concurrent changes in order
    /// (a yield never calls back into this type: only finishing or cancelling a stream runs its `onTermination`).
    func set(_ isFromCache: Bool) {
        state.withLock { state in
            guard state.isFromCache != isFromCache else { return }
            state.isFromCache = isFromCache
            for watcher in state.watchers.values { watcher.yield(isFromCache) }
        }
    }

    /// The state now, then each change, until the store closes or the consumer stops.
    func updates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream<Bool>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64? in
            continuation.yield(state.isFromCache)
            guard !state.finished else { return nil }
            state.nextID += 1
            state.watchers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every stream (the store closed).
    func finish() {
        let watchers = state.withLock { state in
            state.finished = true
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish() }
    }
}
