import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

@Suite struct StoreListenerTests {
    typealias T = StoreTesting

    @Test(arguments: DocumentEngineFactory.all)
    func documentListener(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let ref = try store.document("users/u1")
        try await ref.setData(["points": 1])
        let collected = Collected<DocumentSnapshot>()
        let task = Task {
            for try await snapshot in ref.snapshots() { await collected.append(snapshot) }
        }
        #expect(await collected.waitFor(1).first?.get("points") == .int(1))
        try await ref.updateData(["points": .increment(1)])
        #expect(await collected.waitFor(2).last?.get("points") == .int(2))
        try await ref.delete()
        let all = await collected.waitFor(3)
        #expect(all.count == 3)
        #expect(all.last?.exists == false)
        // Closing the store ends the stream.
        await store.close()
        try await task.value
    }

    @Test(arguments: DocumentEngineFactory.all)
    func queryListenerReportsChangesWithPositions(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let users = try store.collection("users")
        try await users.document("a").setData(["points": 10])
        try await users.document("b").setData(["points": 30])
        try await users.document("x").setData(["points": "not a number"])
        let query = users.whereField("points", isGreaterThan: .int(5))
        let collected = Collected<QuerySnapshot>()
        let task = Task {
            for try await snapshot in query.snapshots() { await collected.append(snapshot) }
        }
        let initial = await collected.waitFor(1)
        #expect(initial.first.map(T.ids) == ["a", "b"])
        #expect(initial.first?.documentChanges.map(\.kind) == [.added, .added])

        try await users.document("c").setData(["points": 20])  // added between a and b
        let added = await collected.waitFor(2)
        #expect(added.last.map(T.ids) == ["a", "c", "b"])
        #expect(
            added.last?.documentChanges == [
                DocumentChange(
                    kind: .added, document: try #require(added.last?.documents[1]), oldIndex: nil, newIndex: 1)
            ])

        try await users.document("a").updateData(["points": 40])  // moves to the end
        let modified = await collected.waitFor(3)
        #expect(modified.last.map(T.ids) == ["c", "b", "a"])
        let change = try #require(modified.last?.documentChanges.first)
        #expect(change.kind == .modified)
        #expect(change.oldIndex == 0)
        #expect(change.newIndex == 2)

        try await users.document("b").updateData(["points": 1])  // leaves the results
        let removed = await collected.waitFor(4)
        #expect(removed.last.map(T.ids) == ["c", "a"])
        #expect(removed.last?.documentChanges.first?.kind == .removed)
        #expect(removed.last?.documentChanges.first?.oldIndex == 1)

        // An unrelated write produces no snapshot.
        try await store.document("other/z").setData(["points": 100])
        try await users.document("x").setData(["points": "still not"])
        try await users.document("d").setData(["points": 50])
        let last = await collected.waitFor(5)
        #expect(last.count == 5)
        #expect(last.last.map(T.ids) == ["c", "a", "d"])
        task.cancel()
        await store.close()
    }

    @Test func limitedQueryListener() async throws {
        let store = try await T.store(.inMemory)
        let users = try store.collection("users")
        for (id, points) in [("a", 1), ("b", 2), ("c", 3)] {
            try await users.document(id).setData(["points": FieldValue(.int(Int64(points)))])
        }
        let collected = Collected<QuerySnapshot>()
        let task = Task {
            for try await snapshot in users.order(by: "points", descending: true).limit(to: 2).snapshots() {
                await collected.append(snapshot)
            }
        }
        #expect(await collected.waitFor(1).first.map(T.ids) == ["c", "b"])
        try await users.document("d").setData(["points": 10])
        let next = await collected.waitFor(2)
        #expect(next.last.map(T.ids) == ["d", "c"])
        #expect(Set(next.last?.documentChanges.map(\.kind) ?? []) == [.added, .removed])
        task.cancel()
    }

    @Test(arguments: DocumentEngineFactory.all)
    func aggregationListenerStaysCurrent(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let orders = try store.collection("orders")
        try await orders.document("o1").setData(["status": "open", "total": 10])
        let collected = Collected<AggregateSnapshot>()
        let task = Task {
            for try await snapshot in orders.whereField("status", isEqualTo: .string("open"))
                .aggregate([.count, .sum("total")]).snapshots()
            {
                await collected.append(snapshot)
            }
        }
        #expect(await collected.waitFor(1).first?.count == 1)
        try await orders.document("o2").setData(["status": "open", "total": 5])
        let second = await collected.waitFor(2)
        #expect(second.last?.count == 2)
        #expect(second.last?.get("sum(total)") == .int(15))
        try await orders.document("o1").updateData(["status": "closed"])
        let third = await collected.waitFor(3)
        #expect(third.last?.count == 1)
        #expect(third.last?.get("sum(total)") == .int(5))
        task.cancel()
    }

    @Test func listenerSeesCommitsFromAnotherStoreOnTheSameFile() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        let watcher = DocumentStore(
            engine: try SQLiteDocumentEngine(path: path),
            options: {
                var o = DocumentStore.Options()
                o.listenerPollInterval = .milliseconds(20)
                return o
            }())
        let writer = DocumentStore(engine: try SQLiteDocumentEngine(path: path))
        let collected = Collected<QuerySnapshot>()
        let task = Task {
            for try await snapshot in try watcher.collection("events").snapshots() { await collected.append(snapshot) }
        }
        #expect(await collected.waitFor(1).first?.count == 0)
        try await writer.collection("events").document("e1").setData(["kind": "ping"])
        let seen = await collected.waitFor(2)
        #expect(seen.last.map(T.ids) == ["e1"])
        task.cancel()
    }

    @Test func commitsArePublishedOnTheBus() async throws {
        let bus = EventBus()
        let store = try await T.store(.inMemory, bus: bus)
        let changes = Collected<DocumentsChanged.Payload>()
        let subscription = bus.subscribe(to: DocumentsChanged.self) { event in
            Task { await changes.append(event.payload) }
        }
        let written = try await store.document("users/u1").setData(["a": 1])
        try await store.batch().deleteDocument(try store.document("users/u1"))
            .setData(["b": 2], forDocument: try store.document("users/u2")).commit()
        let events = await changes.waitFor(2)
        #expect(events.count == 2)
        let sorted = events.sorted { $0.sequence < $1.sequence }
        #expect(sorted[0].paths == ["users/u1"])
        #expect(sorted[0].sequence == written.version)
        #expect(sorted[0].kind == "set")
        #expect(sorted[1].paths == ["users/u1", "users/u2"])
        #expect(sorted[1].deletedPaths == ["users/u1"])
        #expect(sorted[1].kind == "batch")
        subscription.cancel()
    }
}
