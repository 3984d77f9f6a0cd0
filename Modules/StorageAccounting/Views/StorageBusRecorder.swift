import Foundation
public import SuiteCore
import Synchronization

/// Keeps the index up to date from bus events: the Cache module's `cache.store` becomes an item of service `caches`
/// (group = the tier, content id = the key), `cache.evict` and `cache.remove` remove it, and `cache.clear` removes
/// the tier's whole group — without importing the Cache module (docs/events.md).
///
/// Events are handled in publish order by one task, in batches (one transaction per batch). The queue is bounded;
/// what does not fit is dropped and counted in ``droppedCount`` (a later reconciliation or scan corrects the index).
///
/// ```swift
/// let recorder = StorageBusRecorder(bus: bus, index: index)
/// recorder.start()
/// // … the app's DataCache publishes cache.store / cache.evict / cache.remove / cache.clear …
/// await recorder.stop()
/// ```
public final class StorageBusRecorder: Sendable {
    /// The service of the items this recorder writes.
    public static let service = "caches"

    /// What `cache.store`, `cache.evict` and `cache.remove` carry (docs/events.md).
    struct CachePayload: Codable, Sendable {
        var key: String
        var bytes: Int64
        var tier: String
    }

    /// What `cache.clear` carries.
    struct ClearPayload: Codable, Sendable {
        var tier: String
    }

    private enum Operation: Sendable {
        case store(CachePayload, Date)
        case remove(CachePayload)
        case clear(tier: String)
    }

    private struct State {
        var tokens: [Subscription] = []
        var continuation: AsyncStream<Operation>.Continuation?
        var task: Task<Void, Never>?
        var enqueued = 0
        var applied = 0
        var dropped = 0
        var failures = 0
    }

    private let bus: EventBus
    private let index: any StorageIndex
    private let capacity: Int
    private let state = Mutex(State())

    /// A recorder writing `bus`'s cache events into `index`, queueing at most `capacity` events.
    public init(bus: EventBus, index: any StorageIndex, capacity: Int = 65_536) {
        self.bus = bus
        self.index = index
        self.capacity = max(1, capacity)
    }

    /// Events dropped because the queue was full.
    public var droppedCount: Int { state.withLock { $0.dropped } }
    /// Batches whose write failed (their events are lost to the index until the next reconciliation).
    public var failedBatchCount: Int { state.withLock { $0.failures } }

    /// The id of the item for `key` in `tier`: `caches/<tier>/<key>`.
    public static func itemID(tier: String, key: String) -> String { "\(service)/\(tier)/\(key)" }

    /// Subscribes and starts applying events. A second call does nothing. Call ``stop()`` when done: until then the
    /// bus's subscriptions keep the recorder alive.
    public func start() {
        let (stream, continuation) = AsyncStream<Operation>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        let begun = state.withLock { state -> Bool in
            guard state.continuation == nil else { return false }
            state.continuation = continuation
            return true
        }
        guard begun else { return }
        let enqueue: @Sendable (Operation) -> Void = { operation in
            self.state.withLock { state in
                guard let continuation = state.continuation else { return }
                if case .dropped = continuation.yield(operation) { state.dropped += 1 } else { state.enqueued += 1 }
            }
        }
        let store = bus.subscribe(named: "cache.store", as: CachePayload.self) { payload, envelope in
            enqueue(.store(payload, envelope.time))
        }
        let evict = bus.subscribe(named: "cache.evict", as: CachePayload.self) { payload, _ in
            enqueue(.remove(payload))
        }
        let remove = bus.subscribe(named: "cache.remove", as: CachePayload.self) { payload, _ in
            enqueue(.remove(payload))
        }
        let clear = bus.subscribe(named: "cache.clear", as: ClearPayload.self) { payload, _ in
            enqueue(.clear(tier: payload.tier))
        }
        let task = Task {
            var iterator = stream.makeAsyncIterator()
            while let first = await iterator.next() {
                var batch = [first]
                // Take what is already queued (never waiting for more), up to 512 events.
                while batch.count < 512, self.state.withLock({ $0.enqueued - $0.applied > batch.count }) {
                    guard let next = await iterator.next() else { break }
                    batch.append(next)
                }
                let ok = await Self.apply(batch, to: self.index)
                self.state.withLock {
                    $0.applied += batch.count
                    if !ok { $0.failures += 1 }
                }
            }
        }
        state.withLock {
            $0.tokens = [store, evict, remove, clear]
            $0.task = task
        }
    }

    /// Waits until every event received so far is in the index.
    public func drain() async {
        while state.withLock({ $0.applied < $0.enqueued }) { try? await Task.sleep(for: .milliseconds(2)) }
    }

    /// Unsubscribes, applies what is queued, and stops.
    public func stop() async {
        let (tokens, continuation, task) = state.withLock { state in
            defer {
                state.tokens = []
                state.continuation = nil
            }
            return (state.tokens, state.continuation, state.task)
        }
        for token in tokens { token.cancel() }
        continuation?.finish()
        await task?.value
    }

    /// Applies a batch in order: consecutive stores in one write, consecutive removals in another, a clear at once.
    private static func apply(_ batch: [Operation], to index: any StorageIndex) async -> Bool {
        var stores: [StorageItem] = []
        var removals: [String] = []
        var ok = true
        func flush() async {
            do {
                if !stores.isEmpty { try await index.record(stores) }
                if !removals.isEmpty { try await index.remove(ids: removals) }
            } catch {
                ok = false
            }
            stores = []
            removals = []
        }
        for operation in batch {
            switch operation {
            case .store(let payload, let time):
                if !removals.isEmpty { await flush() }
                stores.removeAll { $0.id == itemID(tier: payload.tier, key: payload.key) }
                stores.append(
                    StorageItem(
                        id: itemID(tier: payload.tier, key: payload.key), serviceType: service, groupId: payload.tier,
                        contentId: payload.key, contentType: StorageContentType.unknown,
                        sizeInBytes: max(0, payload.bytes), createdDate: time, fileName: payload.key))
            case .remove(let payload):
                if !stores.isEmpty { await flush() }
                removals.append(itemID(tier: payload.tier, key: payload.key))
            case .clear(let tier):
                await flush()
                do { try await removeGroup(tier, from: index) } catch { ok = false }
            }
        }
        await flush()
        return ok
    }

    /// Removes every item of service ``service`` in group `tier`, a page at a time.
    private static func removeGroup(_ tier: String, from index: any StorageIndex) async throws {
        let filter = StorageFilter(services: [service], groups: [tier])
        while true {
            let ids = try await index.items(filter, order: .id, limit: 4_096).map(\.id)
            guard !ids.isEmpty, try await index.remove(ids: ids) > 0 else { return }
        }
    }
}
