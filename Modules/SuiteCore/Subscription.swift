import Synchronization

/// A token for a synchronous subscription. Call ``cancel()`` to stop receiving events; cancelling twice is harmless.
public final class Subscription: Sendable {
    enum Key: Sendable {
        case typed(ObjectIdentifier)
        case named(String)
        case all
    }

    private weak let bus: EventBus?
    private let id: UInt64
    private let key: Key
    private let cancelled = Atomic<Bool>(false)

    init(bus: EventBus, id: UInt64, key: Key) {
        self.bus = bus
        self.id = id
        self.key = key
    }

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Removes the subscription. Publishes that start after this returns no longer call the handler; one already in
    /// progress on another thread may still deliver its event.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        bus?.remove(id: id, key: key)
    }
}
