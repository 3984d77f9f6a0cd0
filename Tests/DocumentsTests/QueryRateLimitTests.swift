import Foundation
import Logging
import SuiteCore
import Synchronization
import Testing

@testable import Documents

/// The query-rate limit (`DocumentStore.Options.queryRateLimit`): the token bucket as a value with explicit instants,
/// and the store's limiter on a manual clock — no wall-clock timing anywhere.
@Suite(.timeLimit(.minutes(1)))
struct QueryRateLimitTests {
    typealias T = StoreTesting

    // MARK: The bucket

    @Test func aBucketGivesItsBurstThenSpacesTokensByTheRate() {
        var bucket = TokenBucket(perSecond: 2, burst: 3, now: .zero)
        for _ in 0..<3 { #expect(bucket.take(at: .zero, maximumWait: nil) == .zero) }
        // The fourth waits for the next token: half a second at 2 a second; the fifth reserves the one after.
        #expect(bucket.take(at: .zero, maximumWait: nil) == .milliseconds(500))
        #expect(bucket.take(at: .zero, maximumWait: nil) == .seconds(1))
        // Failing fast takes nothing.
        #expect(bucket.take(at: .zero, maximumWait: .zero) == nil)
        #expect(bucket.available(at: .zero) == -2)
        #expect(bucket.available(at: .seconds(1)) == 0)
        #expect(bucket.available(at: .seconds(100)) == 3, "never more than the burst")
        // At 0.5 s the next token is due at 1.5 s: a wait of one second, refused over a maximum below it.
        #expect(bucket.take(at: .milliseconds(500), maximumWait: .milliseconds(999)) == nil)
        #expect(bucket.take(at: .milliseconds(500), maximumWait: .seconds(1)) == .seconds(1))
    }

    @Test func aBucketRespectsTheMaximumWaitAndTakesBackCancelledTokens() {
        var bucket = TokenBucket(perSecond: 1, burst: 1, now: .seconds(10))
        #expect(bucket.take(at: .seconds(10), maximumWait: .zero) == .zero)
        #expect(bucket.take(at: .seconds(10), maximumWait: .zero) == nil)
        #expect(bucket.take(at: .seconds(10), maximumWait: .milliseconds(500)) == nil)
        #expect(bucket.take(at: .seconds(10), maximumWait: .seconds(1)) == .seconds(1))
        bucket.giveBack(at: .seconds(10))
        #expect(bucket.available(at: .seconds(10)) == 0)
        #expect(bucket.take(at: .milliseconds(10_500), maximumWait: nil) == .milliseconds(500))
        // A fractional rate: one token every four seconds.
        var slow = TokenBucket(perSecond: 0.25, burst: 1, now: .zero)
        #expect(slow.take(at: .zero, maximumWait: nil) == .zero)
        #expect(slow.take(at: .seconds(1), maximumWait: nil) == .seconds(3))
    }

    // MARK: The store

    /// A store whose limiter runs on `time`, seeded with the ten users.
    static func store(_ limit: QueryRateLimit, time: ManualTime, coalescing: QueryCoalescing = .disabled)
        async throws -> DocumentStore
    {
        var options = DocumentStore.Options()
        options.queryRateLimit = limit
        options.queryCoalescing = coalescing
        let limiter = QueryRateLimiter(
            limit, now: { time.now }, sleep: { duration in try await time.sleep(for: duration) })
        let store = DocumentStore(
            engine: InMemoryDocumentEngine(), bus: nil, clock: ManualWallClock(), limits: .default,
            logger: .init(label: "test"), options: options, queryLimiter: limiter)
        try await T.seedUsers(store)
        return store
    }

    @Test func theQueryPastTheBurstWaitsForItsTokenOrFailsFast() async throws {
        let time = ManualTime()
        let store = try await Self.store(QueryRateLimit(perSecond: 1, burst: 2), time: time)
        let query = try store.collection("users").whereField("city", isEqualTo: "Lyon")
        #expect(try await query.getDocuments().count == 3)
        #expect(try await query.getDocuments().count == 3)
        // The third waits: one second on the manual clock.
        let third = Task { try await query.getDocuments() }
        await time.waitUntilSleeping(1)
        #expect(store.queryLimiter?.waiting == 1)
        // A caller that does not wait fails at once, typed, and costs nothing.
        let refused = await T.documentsError { _ = try await query.getDocuments(whenRateLimited: .fail) }
        #expect(refused?.code == .rateLimited && refused?.hint != nil)
        time.advance(by: .seconds(1))
        #expect(try await third.value.count == 3)
        let costs = store.sessionCosts
        #expect(costs.byKind["query"] == CostCounts(reads: 9), "three executions billed, the refused one not")
        #expect(costs.queries == QueryThrottleCounts(throttled: 1, throttledWaitMicroseconds: 1_000_000, rejected: 1))
    }

    @Test func aCancelledWaitGivesItsTokenBackAndRunsNothing() async throws {
        let time = ManualTime()
        let store = try await Self.store(QueryRateLimit(perSecond: 1, burst: 1), time: time)
        let query = try store.collection("users").whereField("city", isEqualTo: "Lyon")
        _ = try await query.getDocuments()
        let waiting = Task { try await query.getDocuments() }
        await time.waitUntilSleeping(1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(store.queryLimiter?.waiting == 0)
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 3))
        // The token went back: after one second a query runs at once.
        time.advance(by: .seconds(1))
        #expect(try await query.getDocuments(whenRateLimited: .fail).count == 3)
    }

    @Test func aLimitThatFailsByDefaultAndAMaximumWait() async throws {
        let time = ManualTime()
        let failing = try await Self.store(QueryRateLimit(perSecond: 1, burst: 1, whenLimited: .fail), time: time)
        let users = try failing.collection("users")
        _ = try await users.getDocuments()
        let refused = await T.documentsError { _ = try await users.getDocuments() }
        #expect(refused?.code == .rateLimited)
        // Aggregations and explain take tokens too.
        #expect(await T.documentsError { _ = try await users.count() }?.code == .rateLimited)
        #expect(await T.documentsError { _ = try await users.explain() }?.code == .rateLimited)
        #expect(failing.sessionCosts.queries.rejected == 3)

        let bounded = try await Self.store(
            QueryRateLimit(perSecond: 1, burst: 1, maximumWait: .milliseconds(500)), time: time)
        _ = try await bounded.collection("users").getDocuments()
        let tooLong = await T.documentsError { _ = try await bounded.collection("users").getDocuments() }
        #expect(tooLong?.code == .rateLimited)
    }

    @Test func coalescedCallsTakeNoToken() async throws {
        let time = ManualTime()
        let store = try await Self.store(
            QueryRateLimit(perSecond: 1, burst: 1, whenLimited: .fail), time: time,
            coalescing: QueryCoalescing(isEnabled: true, reuseWindow: .seconds(3600)))
        let paris = try store.collection("users").whereField("city", isEqualTo: "Paris")
        for _ in 0..<5 { #expect(try await paris.getDocuments().count == 4) }
        // The bucket's one token went to the first execution; the four others shared its result.
        #expect(store.sessionCosts.queries == QueryThrottleCounts(coalesced: 4, readsSaved: 16))
        let lyon = try store.collection("users").whereField("city", isEqualTo: "Lyon")
        #expect(await T.documentsError { _ = try await lyon.getDocuments() }?.code == .rateLimited)
    }

    @Test func withoutALimitNothingIsThrottled() async throws {
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        try await T.seedUsers(store)
        for _ in 0..<50 { _ = try await store.collection("users").getDocuments(whenRateLimited: .fail) }
        #expect(store.queryLimiter == nil && store.sessionCosts.queries.isZero)
        var options = DocumentStore.Options()
        options.queryRateLimit = QueryRateLimit(perSecond: 0, burst: 1)
        #expect(DocumentStore(engine: InMemoryDocumentEngine(), options: options).queryLimiter == nil)
    }
}

/// A manual clock for the limiter: `now` moves only when the test advances it, and sleepers wake then.
final class ManualTime: Sendable {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Duration { state.withLock { $0.now } }

    /// Sleeps until the clock reaches now + `duration`; cancellable.
    func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case cancelled, due, sleeping([CheckedContinuation<Void, Never>]) }
                let start = state.withLock { state -> Start in
                    if Task.isCancelled { return .cancelled }
                    let deadline = state.now + duration
                    if deadline <= state.now { return .due }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return .sleeping(ready)
                }
                switch start {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .due: continuation.resume()
                case .sleeping(let ready): for watcher in ready { watcher.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on, waking the sleepers whose deadline passed.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits until `count` sleepers sleep at once.
    func waitUntilSleeping(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
