import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

@Suite struct StoreCostTests {
    typealias T = StoreTesting

    @Test(arguments: DocumentEngineFactory.all)
    func costsAreCountedLikeFirestore(_ factory: DocumentEngineFactory) async throws {
        let bus = EventBus()
        let store = try await T.store(factory, bus: bus)
        let costEvents = Collected<DocumentsCost.Payload>()
        let subscription = bus.subscribe(to: DocumentsCost.self) { event in
            Task { await costEvents.append(event.payload) }
        }
        try await T.seedUsers(store)  // 10 writes
        _ = try await store.document("users/u01").getDocument()  // 1 read
        _ = try await store.document("users/nobody").getDocument()  // 1 read (missing still costs)
        _ = try await store.collection("users").whereField("city", isEqualTo: .string("Paris")).getDocuments()  // 4
        _ = try await store.collection("users").whereField("city", isEqualTo: .string("Nowhere")).getDocuments()  // 1
        _ = try await store.collection("users").count()  // 1 (10 entries)
        try await store.document("users/u01").delete()  // 1 delete
        try await store.document("users/u02").updateData(["points": .increment(1)])  // 1 write

        let report = try await store.costs()
        #expect(report.total == CostCounts(reads: 8, writes: 11, deletes: 1))
        #expect(report.byCollection["users"] == CostCounts(reads: 8, writes: 11, deletes: 1))
        #expect(report.byKind["batch"] == CostCounts(writes: 10))
        #expect(report.byKind["get"] == CostCounts(reads: 2))
        #expect(report.byKind["query"] == CostCounts(reads: 5))
        #expect(report.byKind["aggregation"] == CostCounts(reads: 1))
        #expect(report.byKind["delete"] == CostCounts(deletes: 1))
        #expect(report.byKind["update"] == CostCounts(writes: 1))
        // The bus gets the same sums, some of them held back and summed (Options.costEventInterval).
        let events = await costEvents.waitUntil { events in
            events.reduce(0) { $0 + $1.reads } == 8 && events.reduce(0) { $0 + $1.writes } == 11
        }
        #expect(events.reduce(0) { $0 + $1.reads } == 8)
        #expect(events.reduce(0) { $0 + $1.writes } == 11)
        #expect(events.reduce(0) { $0 + $1.deletes } == 1)
        subscription.cancel()
    }

    @Test func costEventsAreSummedOverTheIntervalAndNoneIsLost() async throws {
        let bus = EventBus()
        var options = DocumentStore.Options()
        options.costEventInterval = .seconds(3600)
        let store = DocumentStore(engine: InMemoryDocumentEngine(), bus: bus, options: options)
        let costEvents = Collected<DocumentsCost.Payload>()
        let subscription = bus.subscribe(to: DocumentsCost.self) { event in
            Task { await costEvents.append(event.payload) }
        }
        try await store.document("users/a").setData(["x": 1])  // published at once: the first in the interval
        for _ in 0..<200 { _ = try await store.document("users/a").getDocument() }
        try await store.document("orders/o").setData(["x": 1])
        let first = await costEvents.waitFor(1)
        #expect(first.count == 1 && first.first?.writes == 1)
        await store.close()  // publishes what was held: one event per kind and collection
        let events = await costEvents.waitFor(3)
        #expect(events.count == 3)
        #expect(events.filter { $0.kind == "get" }.map(\.reads) == [200])
        #expect(events.reduce(0) { $0 + $1.writes } == 2)
        subscription.cancel()

        // With no interval, every operation is its own event.
        options.costEventInterval = .zero
        let eager = DocumentStore(engine: InMemoryDocumentEngine(), bus: bus, options: options)
        let each = Collected<DocumentsCost.Payload>()
        let second = bus.subscribe(to: DocumentsCost.self) { event in Task { await each.append(event.payload) } }
        for _ in 0..<5 { _ = try await eager.document("users/a").getDocument() }
        #expect(await each.waitFor(5).count == 5)
        second.cancel()
    }

    @Test func countersPersistAcrossStoresOnOneFile() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let first = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
        try await first.document("a/b").setData(["x": 1])
        _ = try await first.document("a/b").getDocument()
        await first.close()
        let second = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
        try await second.document("a/c").setData(["x": 1])
        try await second.flushCosts()
        let third = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
        let report = try await third.costs()
        #expect(report.total == CostCounts(reads: 1, writes: 2, deletes: 0))
        #expect(report.json["total"]?["writes"] == .int(2))
        try await third.resetCosts()
        #expect(try await third.costs().isEmpty)
    }

    @Test func snapshotJSON() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_700_000_000.5))
        let store = try await T.store(.inMemory, clock: clock)
        let snapshot = try await store.document("users/u1").setData(["name": "Ada", "when": .serverTimestamp])
        let json = snapshot.json
        #expect(json["path"] == .string("users/u1"))
        #expect(json["version"] == .int(snapshot.version))
        #expect(json["updateTime"]?.stringValue?.hasPrefix("2023-11-14T22:13:20.5") == true)
        #expect(json["data"]?["name"] == .string("Ada"))
        #expect(json["data"]?["when"]?["$timestamp"] != nil)
    }
}
