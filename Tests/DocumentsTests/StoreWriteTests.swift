import DocumentEngineContract
import Documents
import Foundation
import SuiteCore
import Testing

@Suite struct StoreWriteTests {
    @Test(arguments: DocumentEngineFactory.all)
    func setReturnsTheResultingDocument(_ factory: DocumentEngineFactory) async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_700_000_000))
        let store = try await StoreTesting.store(factory, clock: clock)
        let ref = try store.document("users/u1")
        let first = try await ref.setData(["name": "Ada", "points": 10])
        #expect(first.exists)
        #expect(first.data == ["name": .string("Ada"), "points": .int(10)])
        #expect(first.version > 0)
        #expect(first.updateTime == Timestamp(microseconds: 1_700_000_000_000_000))
        clock.advance(by: 1)
        let second = try await ref.setData(["name": "Bob"])
        #expect(second.data == ["name": .string("Bob")])
        #expect(second.version > first.version)
        #expect(second.createTime == first.createTime)
        #expect(second.updateTime == Timestamp(microseconds: 1_700_000_001_000_000))
        let read = try await ref.getDocument()
        #expect(read.data == second.data)
        #expect(read.version == second.version)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func mergeAndMergeFields(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let ref = try store.document("users/u1")
        try await ref.setData(["name": "Ada", "address": ["city": "Paris", "zip": "75001"], "points": 1])
        let merged = try await ref.setData(["address": ["city": "Lyon"], "age": 36], merge: true)
        #expect(merged.get("address.city") == .string("Lyon"))
        #expect(merged.get("address.zip") == .string("75001"))
        #expect(merged.get("name") == .string("Ada"))
        #expect(merged.get("age") == .int(36))
        let masked = try await ref.setData(["name": "Eve", "points": 99], mergeFields: ["points"])
        #expect(masked.get("name") == .string("Ada"))
        #expect(masked.get("points") == .int(99))
        // Merge creates a missing document.
        let created = try await store.document("users/u2").setData(["n": 1], merge: true)
        #expect(created.exists)
        let missingField = await StoreTesting.documentsError {
            try await ref.setData(["a": 1], mergeFields: ["b"])
        }
        #expect(missingField?.code == .invalidValue)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func updateUsesFieldPathsAndNeedsTheDocument(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let ref = try store.document("users/u1")
        let missing = await StoreTesting.documentsError { try await ref.updateData(["a": 1]) }
        #expect(missing?.code == .notFound)
        #expect(try await ref.getDocument().exists == false)
        try await ref.setData(["address": ["city": "Paris", "zip": "75001"], "n": 1, "gone": true])
        let updated = try await ref.updateData(["address.city": "Lyon", "n": .increment(2), "gone": .delete])
        #expect(updated.get("address.city") == .string("Lyon"))
        #expect(updated.get("address.zip") == .string("75001"))
        #expect(updated.get("n") == .int(3))
        #expect(updated.get("gone") == nil)
        let quoted = try await ref.updateData(["`a.b`": 1])
        #expect(quoted.data?["a.b"] == .int(1))
    }

    @Test(arguments: DocumentEngineFactory.all)
    func transforms(_ factory: DocumentEngineFactory) async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try await StoreTesting.store(factory, clock: clock)
        let ref = try store.document("stats/daily")
        let created = try await ref.setData(
            [
                "orders": .increment(1), "revenue": .increment(2.5), "at": .serverTimestamp,
                "tags": .arrayUnion([.string("a")]),
            ],
            merge: true)
        #expect(created.get("orders") == .int(1))
        #expect(created.get("revenue") == .double(2.5))
        #expect(created.get("at") == .timestamp(Timestamp(microseconds: 1_800_000_000_000_000)))
        #expect(created.get("tags") == .array([.string("a")]))
        let next = try await ref.updateData([
            "orders": .increment(Int64(4)), "revenue": .increment(1),
            "tags": .arrayUnion([.string("a"), .string("b")]),
        ])
        #expect(next.get("orders") == .int(5))
        #expect(next.get("revenue") == .double(3.5))
        #expect(next.get("tags") == .array([.string("a"), .string("b")]))
        let removed = try await ref.updateData(["tags": .arrayRemove([.string("a")]), "orders": .increment(0.5)])
        #expect(removed.get("tags") == .array([.string("b")]))
        #expect(removed.get("orders") == .double(5.5))
        let saturated = try await ref.updateData(["big": FieldValue(.int(.max)), "count": .increment(1)])
        #expect(saturated.get("count") == .int(1))
        let clamp = try await ref.updateData(["big": .increment(1)])
        #expect(clamp.get("big") == .int(Int64.max))
    }

    @Test(arguments: DocumentEngineFactory.all)
    func transformsOnAWrongTypeFailAndChangeNothing(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let ref = try store.document("things/t1")
        let original = try await ref.setData(["name": "x", "list": [1, 2], "n": 1])
        for update: [String: FieldValue] in [
            ["name": .increment(1)], ["name": .increment(1.5)], ["n": .arrayUnion([.int(1)])],
            ["name": .arrayRemove([.int(1)])],
        ] {
            let error = await StoreTesting.documentsError { try await ref.updateData(update) }
            #expect(error?.code == .invalidValue)
        }
        let deleteInSet = await StoreTesting.documentsError { try await ref.setData(["a": .delete]) }
        #expect(deleteInSet?.code == .invalidValue)
        let inArray = await StoreTesting.documentsError { try await ref.setData(["a": [.serverTimestamp]]) }
        #expect(inArray?.code == .invalidValue)
        #expect(try await ref.getDocument().version == original.version)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func deleteAndPreconditions(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let ref = try store.document("users/u1")
        let created = try await ref.setData(["a": 1], precondition: .exists(false))
        let again = await StoreTesting.documentsError { try await ref.setData(["a": 2], precondition: .exists(false)) }
        #expect(again?.code == .preconditionFailed)
        let stale = await StoreTesting.documentsError {
            try await ref.updateData(["a": 3], precondition: .version(created.version + 100))
        }
        #expect(stale?.code == .preconditionFailed)
        let ok = try await ref.updateData(["a": 4], precondition: .version(created.version))
        #expect(ok.get("a") == .int(4))
        let deleted = try await ref.delete()
        #expect(!deleted.exists)
        #expect(deleted.version > ok.version)
        #expect(try await ref.getDocument().exists == false)
        try await ref.delete()  // deleting a missing document is fine
    }

    @Test(arguments: DocumentEngineFactory.all)
    func addDocumentGeneratesAnID(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let added = try await store.collection("orders").addDocument(data: ["total": 12.5])
        #expect(added.documentID.count == 20)
        #expect(added.path.collection.string == "orders")
        #expect(try await store.document(added.path).getDocument().get("total") == .double(12.5))
    }

    struct Profile: Codable, Equatable {
        @DocumentID var id: String?
        var name: String
        var points: Int
    }

    @Test(arguments: DocumentEngineFactory.all)
    func codableDocuments(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let ref = try store.document("profiles/p1")
        let written = try await ref.setData(from: Profile(name: "Ada", points: 3))
        #expect(written.get("name") == .string("Ada"))
        #expect(written.data?["id"] == nil)
        let decoded = try await ref.getDocument().data(as: Profile.self)
        #expect(decoded.id == "p1")
        #expect(decoded.points == 3)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func batchIsAtomicAndReturnsEveryResult(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let a = try store.document("users/a")
        let b = try store.document("users/b")
        try await a.setData(["n": 1])
        let results = try await store.batch()
            .setData(["n": 10], forDocument: b)
            .updateData(["n": .increment(1)], forDocument: a)
            .updateData(["n": .increment(5)], forDocument: b)
            .commit()
        #expect(results.count == 3)
        #expect(results[0].get("n") == .int(10))
        #expect(results[1].get("n") == .int(2))
        #expect(results[2].get("n") == .int(15))
        #expect(results[0].version == results[1].version)
        // A failing write leaves everything unchanged.
        let failing = await StoreTesting.documentsError {
            try await store.batch()
                .setData(["n": 100], forDocument: a)
                .updateData(["n": 1], forDocument: try store.document("users/missing"))
                .commit()
        }
        #expect(failing?.code == .notFound)
        #expect(try await a.getDocument().get("n") == .int(2))
        let conditioned = await StoreTesting.documentsError {
            try await store.batch()
                .setData(["n": 100], forDocument: a)
                .setData(["n": 100], forDocument: b, precondition: .version(results[0].version - 1))
                .commit()
        }
        #expect(conditioned?.code == .preconditionFailed)
        #expect(try await a.getDocument().get("n") == .int(2))
    }

    @Test func batchLimit() async throws {
        let store = try await StoreTesting.store(.inMemory)
        let batch = store.batch()
        for i in 0..<501 {
            batch.setData(["i": FieldValue(.int(Int64(i)))], forDocument: try store.document("c/d\(i)"))
        }
        let error = await StoreTesting.documentsError { try await batch.commit() }
        #expect(error?.code == .limitExceeded)
        #expect(try await store.collection("c").count() == 0)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func concurrentTransactionsIncrementExactly(_ factory: DocumentEngineFactory) async throws {
        let store = try await StoreTesting.store(factory)
        let counter = try store.document("counters/c")
        try await counter.setData(["n": 0])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await store.runTransaction { tx in
                        let snapshot = try await tx.getDocument(counter)
                        guard case .int(let n)? = snapshot.get("n") else { throw DocumentsError(.invalidValue, "n") }
                        try tx.updateData(["n": FieldValue(.int(n + 1))], forDocument: counter)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getDocument().get("n") == .int(100))
    }

    @Test func concurrentIncrementsWithoutTransactionsAreExact() async throws {
        let store = try await StoreTesting.store(.sqlite)
        let counter = try store.document("counters/c")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { try await counter.setData(["n": .increment(1)], merge: true) }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getDocument().get("n") == .int(50))
    }

    @Test func transactionRules() async throws {
        let store = try await StoreTesting.store(.inMemory)
        let a = try store.document("users/a")
        try await a.setData(["points": 20])
        // Read after write.
        let readAfterWrite = await StoreTesting.documentsError {
            try await store.runTransaction { tx in
                tx.setData(["x": 1], forDocument: a)
                _ = try await tx.getDocument(a)
            }
        }
        #expect(readAfterWrite?.code == .unsupported)
        // A document that keeps changing aborts the transaction after maxAttempts.
        let attempts = AttemptCounter()
        let aborted = await StoreTesting.documentsError {
            try await store.runTransaction(maxAttempts: 3) { tx in
                await attempts.increment()
                _ = try await tx.getDocument(a)
                try await a.updateData(["points": .increment(1)])  // a concurrent writer
                try tx.updateData(["points": 0], forDocument: a)
            }
        }
        #expect(aborted?.code == .transactionAborted)
        #expect(await attempts.value == 3)
        #expect(try await a.getDocument().get("points") == .int(23))
        // The loyalty redeem: subtract 10 points and log it.
        let redeemed = try await store.runTransaction { tx -> Int64 in
            let user = try await tx.getDocument(a)
            guard case .int(let points)? = user.get("points"), points >= 10 else { return -1 }
            try tx.updateData(["points": .increment(-10)], forDocument: a)
            tx.setData(
                ["points": -10, "at": .serverTimestamp],
                forDocument: try store.collection("pointTransactions").document())
            return points - 10
        }
        #expect(redeemed == 13)
        #expect(try await store.collection("pointTransactions").count() == 1)
    }
}

actor AttemptCounter {
    var value = 0
    func increment() { value += 1 }
}

@Suite struct StoreMoreWriteTests {
    @Test func mergeWithDeleteAndNestedTransforms() async throws {
        let store = try await StoreTesting.store(.inMemory)
        let ref = try store.document("stats/daily")
        try await ref.setData(["keep": 1, "drop": 2, "nested": ["a": 1]])
        let merged = try await ref.setData(
            ["drop": .delete, "nested": ["a": .increment(2), "b": .serverTimestamp]], merge: true)
        #expect(merged.get("drop") == nil)
        #expect(merged.get("keep") == .int(1))
        #expect(merged.get("nested.a") == .int(3))
        #expect(merged.get("nested.b") != nil)
    }

    @Test func nestedTransactionDoesNotDeadlock() async throws {
        let store = try await StoreTesting.store(.inMemory)
        let a = try store.document("c/a")
        try await a.setData(["n": 0])
        // Force the outer transaction to retry (so it runs serialized) and start another one inside it.
        let attempts = AttemptCounter()
        try await store.runTransaction { tx in
            await attempts.increment()
            _ = try await tx.getDocument(a)
            if await attempts.value == 1 { try await a.updateData(["n": .increment(1)]) }
            try await store.runTransaction { inner in
                _ = try await inner.getDocument(try store.document("c/other"))
            }
            try tx.updateData(["n": .increment(10)], forDocument: a)
        }
        #expect(try await a.getDocument().get("n") == .int(11))
    }

    @Test func declaredIndexesCanBeListedAndDropped() async throws {
        let store = try await StoreTesting.store(.sqlite)
        try await StoreTesting.seedUsers(store)
        let definition = IndexDefinition(
            collectionID: "users", fields: [try .init(parsing: "city"), try .init(parsing: "age:desc")])
        #expect(definition.command == "suite docs index add users city:asc age:desc")
        try await store.declareIndex(definition)
        try await store.declareIndex(definition)
        #expect(try await store.indexes() == [definition])
        let query = try store.collection("users").whereField("city", isEqualTo: .string("Lyon")).order(
            by: "age", descending: true)
        #expect(StoreTesting.ids(try await query.getDocuments()) == ["u06", "u10", "u02"])
        try await store.dropIndex(definition)
        #expect(try await store.indexes().isEmpty)
        let error = await StoreTesting.documentsError { _ = try await query.getDocuments() }
        #expect(error?.code == .missingIndex)
        let single = await StoreTesting.documentsError {
            try await store.declareIndex(IndexDefinition(collectionID: "users", fields: [try .init(parsing: "age")]))
        }
        #expect(single?.code == .invalidQuery)
    }
}
