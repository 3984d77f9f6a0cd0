import DocumentEngineContract
import Foundation
import SuiteCore
import Testing

@testable import Documents

/// Query coalescing (`DocumentStore.Options.queryCoalescing`): identical reads running at once share one execution,
/// billed once; different reads do not; a write completed before a call is always seen; cancellation and errors.
/// Calls are made to overlap by holding the engine's reads at a gate, not by timing.
@Suite(.timeLimit(.minutes(1)))
struct QueryCoalescingTests {
    typealias T = StoreTesting

    static let engines: [DocumentEngineFactory] = [.inMemory, .sqlite]

    /// A store with coalescing on over a gated engine, seeded with the ten users.
    static func store(
        _ factory: DocumentEngineFactory, window: Duration = .zero, gating: GatedDocumentEngine.Reads = .queries
    ) async throws -> (DocumentStore, GatedDocumentEngine) {
        let engine = GatedDocumentEngine(try await factory.make().engine, gating: gating)
        var options = DocumentStore.Options()
        options.queryCoalescing = QueryCoalescing(isEnabled: true, reuseWindow: window)
        let store = DocumentStore(engine: engine, clock: ManualWallClock(), options: options)
        try await T.seedUsers(store)
        return (store, engine)
    }

    static func parisians(_ store: DocumentStore) throws -> Query {
        try store.collection("users").whereField("city", isEqualTo: "Paris")
    }

    /// Waits until `count` calls wait for an execution another call started.
    static func waitUntilJoined(_ store: DocumentStore, _ count: Int, points: Bool = false) async {
        let coalescer: () -> Int = {
            (points ? store.documentCoalescer?.joinedCount : store.queryCoalescer?.joinedCount) ?? 0
        }
        for _ in 0..<2000 where coalescer() < count { try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test(arguments: engines)
    func identicalConcurrentQueriesShareOneExecutionBilledOnce(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let query = try Self.parisians(store)
        engine.close()
        let first = Task { try await query.getDocuments() }
        await engine.waitUntilHeld(1)
        let others = (0..<7).map { _ in Task { try await query.getDocuments() } }
        await Self.waitUntilJoined(store, 7)
        #expect(store.queryCoalescer?.runningCount == 1)
        engine.open()
        let expected = try await first.value.documents.map(\.documentID)
        for other in others { #expect(try await other.value.documents.map(\.documentID) == expected) }
        #expect(expected == ["u01", "u03", "u05", "u09"])
        #expect(engine.heldTotal == 1, "one execution reached the engine")
        let costs = store.sessionCosts
        #expect(costs.byKind["query"] == CostCounts(reads: 4), "reads billed once")
        #expect(costs.queries == QueryThrottleCounts(coalesced: 7, readsSaved: 28))
        let persisted = try await store.costs()
        #expect(persisted.queries.coalesced == 7 && persisted.json["queries"]?["readsSaved"] == .int(28))
    }

    @Test(arguments: engines)
    func differentQueriesAreNotCoalesced(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let users = try store.collection("users")
        let queries: [Query] = [
            users.whereField("city", isEqualTo: "Paris"),
            users.whereField("city", isEqualTo: "Lyon"),
            users.whereField("city", isEqualTo: "Paris").limit(to: 2),
            users.whereField("city", isEqualTo: "Paris").select(["name"]),
            try store.collectionGroup("users"),
        ]
        engine.close()
        let tasks = queries.map { query in Task { try await query.getDocuments() } }
        await engine.waitUntilHeld(queries.count)
        engine.open()
        let counts = try await tasks.asyncMap { try await $0.value.count }
        #expect(counts == [4, 3, 2, 4, 10])
        #expect(store.sessionCosts.queries.coalesced == 0)
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 23))
    }

    @Test(arguments: engines)
    func aWriteCompletedBeforeAQueryStartsIsAlwaysSeen(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let query = try Self.parisians(store)
        engine.close()
        let before = Task { try await query.getDocuments() }
        await engine.waitUntilHeld(1)
        try await store.document("users/u11").setData(["name": "Kim", "city": "Paris"])
        // The running execution began before the write: a new call must not share it.
        let after = Task { try await query.getDocuments() }
        await engine.waitUntilHeld(2)
        // A call made after that one may share it: it began after the write.
        let later = Task { try await query.getDocuments() }
        await Self.waitUntilJoined(store, 1)
        engine.open()
        _ = try await before.value
        #expect(try await after.value.documents.map(\.documentID).contains("u11"))
        #expect(try await later.value.documents.map(\.documentID).contains("u11"))
        #expect(store.sessionCosts.queries.coalesced == 1)
    }

    @Test(arguments: engines)
    func aReuseWindowAnswersFromTheLastResultUntilAWrite(_ factory: DocumentEngineFactory) async throws {
        let (store, _) = try await Self.store(factory, window: .seconds(3600))
        let query = try Self.parisians(store)
        #expect(try await query.getDocuments().count == 4)
        #expect(try await query.getDocuments().count == 4)
        #expect(try await query.getDocuments().count == 4)
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 4))
        #expect(store.sessionCosts.queries == QueryThrottleCounts(coalesced: 2, readsSaved: 8))
        try await store.document("users/u11").setData(["name": "Kim", "city": "Paris"])
        #expect(try await query.getDocuments().count == 5, "a write ends the reuse")
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 9))
    }

    @Test(arguments: engines)
    func aCancelledCallerDoesNotCancelTheOthers(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let query = try Self.parisians(store)
        engine.close()
        let leader = Task { try await query.getDocuments() }
        await engine.waitUntilHeld(1)
        let joiners = (0..<3).map { _ in Task { try await query.getDocuments() } }
        await Self.waitUntilJoined(store, 3)
        leader.cancel()
        joiners[0].cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        await #expect(throws: CancellationError.self) { try await joiners[0].value }
        #expect(store.queryCoalescer?.runningCount == 1, "the execution goes on for the others")
        engine.open()
        #expect(try await joiners[1].value.count == 4)
        #expect(try await joiners[2].value.count == 4)
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 4))
    }

    @Test(arguments: engines)
    func anExecutionNobodyWaitsForIsCancelled(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let query = try Self.parisians(store)
        engine.close()
        let callers = (0..<3).map { _ in Task { try await query.getDocuments() } }
        await engine.waitUntilHeld(1)
        await Self.waitUntilJoined(store, 2)
        for caller in callers { caller.cancel() }
        for caller in callers { await #expect(throws: CancellationError.self) { try await caller.value } }
        #expect(store.queryCoalescer?.runningCount == 0)
        engine.open()
        // The next call runs afresh.
        #expect(try await query.getDocuments().count == 4)
    }

    @Test(arguments: engines)
    func anErrorReachesEveryWaiter(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory)
        let query = try Self.parisians(store)
        engine.close()
        let callers = (0..<4).map { _ in Task { try await query.getDocuments() } }
        await engine.waitUntilHeld(1)
        await Self.waitUntilJoined(store, 3)
        engine.open(failing: DocumentsError(.storage, "disk on fire"))
        for caller in callers {
            let error = await T.documentsError { _ = try await caller.value }
            #expect(error?.code == .storage && error?.message == "disk on fire")
        }
        #expect(store.sessionCosts.byKind["query"] == nil, "nothing billed for a failed execution")
        #expect(store.queryCoalescer?.runningCount == 0)
        engine.open()
        #expect(try await query.getDocuments().count == 4, "the next call runs afresh")
    }

    @Test(arguments: engines)
    func identicalDocumentReadsShareOneRead(_ factory: DocumentEngineFactory) async throws {
        let (store, engine) = try await Self.store(factory, gating: .points)
        let ada = try store.document("users/u01")
        engine.close()
        let first = Task { try await ada.getDocument() }
        await engine.waitUntilHeld(1)
        let others = (0..<4).map { _ in Task { try await ada.getDocument() } }
        await Self.waitUntilJoined(store, 4, points: true)
        engine.open()
        #expect(try await first.value.data?["name"] == "Ada")
        for other in others { #expect(try await other.value.data?["name"] == "Ada") }
        #expect(store.sessionCosts.byKind["get"] == CostCounts(reads: 1))
        #expect(store.sessionCosts.queries == QueryThrottleCounts(coalesced: 4, readsSaved: 4))
    }

    @Test func withoutCoalescingEveryCallRuns() async throws {
        let engine = GatedDocumentEngine(InMemoryDocumentEngine())
        let store = DocumentStore(engine: engine)
        try await T.seedUsers(store)
        let query = try Self.parisians(store)
        engine.close()
        let callers = (0..<3).map { _ in Task { try await query.getDocuments() } }
        await engine.waitUntilHeld(3)
        engine.open()
        for caller in callers { #expect(try await caller.value.count == 4) }
        #expect(store.sessionCosts.byKind["query"] == CostCounts(reads: 12))
        #expect(store.sessionCosts.queries.isZero)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
