import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Synchronization
import Testing

@Suite struct StoreImportTests {
    typealias T = StoreTesting

    static func order(_ i: Int) -> DocumentData {
        [
            "n": .int(Int64(i)), "status": .string(i % 3 == 0 ? "open" : "closed"),
            "tags": .array([.string("t\(i % 4)"), .string("all")]),
            "address": .map(["city": .string(i % 2 == 0 ? "Paris" : "Lyon")]),
        ]
    }

    @Test(arguments: DocumentEngineFactory.all)
    func importerCommitsChunksAndDocumentsAreQueryable(_ factory: DocumentEngineFactory) async throws {
        let bus = EventBus()
        let store = try await T.store(factory, bus: bus)
        let changes = Collected<DocumentsChanged.Payload>()
        let subscription = bus.subscribe(to: DocumentsChanged.self) { event in
            Task { await changes.append(event.payload) }
        }
        let orders = try store.collection("orders")
        let before = try await store.lastSequence()
        let commits = Mutex<[Int]>([])
        let importer = store.importer(into: orders, chunkSize: 4) { total in commits.withLock { $0.append(total) } }
        for i in 0..<10 {
            try await importer.add(id: String(format: "o%02d", i), data: Self.order(i))
        }
        #expect(importer.addedCount == 10)
        #expect(try await importer.finish() == 10)
        #expect(importer.committedCount == 10)
        // Chunks of 4, 4, 2: three commits, each one atomic engine commit.
        #expect(commits.withLock { $0 } == [4, 8, 10])
        #expect(try await store.lastSequence() == before + 3)
        let events = await changes.waitFor(3).sorted { $0.sequence < $1.sequence }
        #expect(events.map(\.paths.count) == [4, 4, 2])
        #expect(events.allSatisfy { $0.kind == "import" && $0.deletedPaths.isEmpty })
        #expect(events.first?.paths.first == "orders/o00")
        subscription.cancel()

        // Readable, indexed on every field (nested and array-contains included).
        let o7 = try await orders.document("o07").getDocument()
        #expect(o7.data == Self.order(7))
        let open = try await orders.whereField("status", isEqualTo: .string("open")).getDocuments()
        #expect(T.ids(open) == ["o00", "o03", "o06", "o09"])
        let paris = try await orders.whereField("address.city", isEqualTo: .string("Paris")).getDocuments()
        #expect(paris.documents.count == 5)
        let t1 = try await orders.whereField("tags", arrayContains: .string("t1")).getDocuments()
        #expect(T.ids(t1) == ["o01", "o05", "o09"])
        let ranged = try await orders.whereField("n", isGreaterThanOrEqualTo: .int(8)).getDocuments()
        #expect(T.ids(ranged) == ["o08", "o09"])
    }

    @Test func importReplacesExistingDocumentsAndGeneratesIDs() async throws {
        let store = try await T.store(.inMemory)
        let users = try store.collection("users")
        try await users.document("u1").setData(["old": true, "name": "Ada"] as [String: FieldValue])
        let rows: [(id: String?, data: DocumentData)] = [
            (id: "u1", data: ["name": .string("Ada L.")]), (id: nil, data: ["name": .string("Auto")]),
            (id: "u1", data: ["name": .string("Last")]),
        ]
        #expect(try await store.importDocuments(into: users, rows) == 3)
        let u1 = try await users.document("u1").getDocument()
        #expect(u1.data == ["name": .string("Last")])  // set replaces: "old" is gone; the later row wins
        let all = try await users.getDocuments()
        #expect(all.documents.count == 2)
        let auto = try #require(all.documents.first { $0.documentID != "u1" })
        #expect(auto.documentID.count == 20)
        #expect(auto.data == ["name": .string("Auto")])
    }

    @Test func aBadDocumentFailsWithItsPositionAndEarlierChunksStay() async throws {
        let store = try await T.store(.inMemory)
        let orders = try store.collection("orders")
        let importer = store.importer(into: orders, chunkSize: 2)
        try await importer.add(id: "a", data: ["n": .int(1)])
        try await importer.add(id: "b", data: ["n": .int(2)])  // commits chunk [a, b]
        try await importer.add(id: "c", data: ["n": .int(3)])
        let error = await T.documentsError {
            try await importer.add(id: "d", data: ["__reserved__": .int(1)])
        }
        let failure = try #require(error)
        #expect(failure.code == .invalidField)
        #expect(failure.message.hasPrefix("document 4 ('d'): "))
        #expect(failure.underlying is DocumentsError)
        await importer.abandon()
        let ids = T.ids(try await orders.getDocuments())
        #expect(ids == ["a", "b"])  // the committed chunk stays; the pending "c" was dropped

        // Size limit and bad ids are checked too.
        var limits = DocumentLimits()
        limits.maximumDocumentSize = 64
        let small = DocumentStore(engine: InMemoryDocumentEngine(), clock: ManualWallClock(), limits: limits)
        let other = small.importer(into: try small.collection("orders"))
        try await other.add(id: "ok", data: ["s": .string("short")])
        let tooBig = await T.documentsError {
            try await other.add(id: "big", data: ["s": .string(String(repeating: "x", count: 200))])
        }
        #expect(tooBig?.code == .limitExceeded)
        #expect(tooBig?.message.hasPrefix("document 2 ('big')") == true)
        let badID = await T.documentsError { try await other.add(id: "a/b", data: [:]) }
        #expect(badID?.code == .invalidPath)
        #expect(badID?.message.hasPrefix("document 3 ('a/b')") == true)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func concurrentProducersLoseNothing(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let orders = try store.collection("orders")
        let importer = store.importer(into: orders, chunkSize: 7)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for i in 0..<25 { try await importer.add(id: "p\(producer)-\(i)", data: Self.order(i)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await importer.finish() == 100)
        #expect(try await orders.getDocuments().documents.count == 100)
    }

    /// Imported documents get the entries of the collection's declared indexes too, and a chunk that puts one id
    /// twice keeps the last.
    @Test(arguments: DocumentEngineFactory.all)
    func importMaintainsDeclaredIndexes(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await store.declareIndex(
            IndexDefinition(
                collectionID: "orders",
                fields: [.init(try FieldPath("status")), .init(try FieldPath("n"), order: .descending)]))
        let orders = try store.collection("orders")
        let importer = store.importer(into: orders, chunkSize: 5)
        for i in 0..<12 { try await importer.add(id: String(format: "o%02d", i), data: Self.order(i)) }
        try await importer.add(id: "o03", data: Self.order(30))
        #expect(try await importer.finish() == 13)
        let query = orders.whereField("status", isEqualTo: .string("open")).order(by: "n", descending: true)
        #expect(T.ids(try await query.getDocuments()) == ["o03", "o09", "o06", "o00"])
        #expect(try await query.explain().indexes.first?.contains("composite") == true)
    }

    /// A chunk closes early once its bodies and index keys reach `maximumChunkBytes`, so large documents do not pile
    /// up `chunkSize` at a time.
    @Test func largeDocumentsCloseChunksByBytes() async throws {
        let store = try await T.store(.inMemory)
        let commits = Mutex<[Int]>([])
        let importer = store.importer(
            into: try store.collection("files"), chunkSize: 100, maximumChunkBytes: 10_000
        ) { total in commits.withLock { $0.append(total) } }
        let big: DocumentData = ["text": .string(String(repeating: "x", count: 3_000))]
        for i in 0..<10 { try await importer.add(id: "f\(i)", data: big) }
        #expect(try await importer.finish() == 10)
        // About 3 KB of body and 64 bytes of key per document: the fourth passes 10,000 bytes.
        #expect(commits.withLock { $0 } == [4, 8, 10])
        #expect(try await store.collection("files").getDocuments().count == 10)
    }

    @Test func importCostsCountAsWrites() async throws {
        let store = try await T.store(.inMemory)
        try await store.importDocuments(
            into: try store.collection("users/u1/orders"),
            (0..<7).map { (id: "o\($0)" as String?, data: ["n": .int(Int64($0))] as DocumentData) }, chunkSize: 3)
        let report = store.sessionCosts
        #expect(report.total == CostCounts(writes: 7))
        #expect(report.byKind["import"] == CostCounts(writes: 7))
        #expect(report.byCollection["orders"] == CostCounts(writes: 7))
    }

    @Test(arguments: DocumentEngineFactory.all)
    func listenersSeeImportedDocuments(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let orders = try store.collection("orders")
        let query = orders.whereField("status", isEqualTo: .string("open"))
        let collected = Collected<QuerySnapshot>()
        let task = Task {
            for try await snapshot in query.snapshots() { await collected.append(snapshot) }
        }
        #expect(await collected.waitFor(1).first?.documents.isEmpty == true)
        try await store.importDocuments(
            into: orders, (0..<6).map { (id: String(format: "o%02d", $0) as String?, data: Self.order($0)) },
            chunkSize: 100)
        let seen = await collected.waitFor(2)
        #expect(seen.last.map(T.ids) == ["o00", "o03"])
        #expect(seen.last?.documentChanges.map(\.kind) == [.added, .added])
        task.cancel()
        await store.close()
    }
}
