import DocumentEngineContract
import Documents
import Foundation
import Observation
import SuiteCore
import SuiteTestSupport
import Testing

/// The `@Observable` live models follow the store: each test writes, then waits for the model's property to change
/// through Observation tracking (``TestSupport/waitUntil(_:)``).
@Suite(.timeLimit(.minutes(1)))
@MainActor
struct LiveModelTests {
    typealias T = StoreTesting

    @Test(arguments: DocumentEngineFactory.all)
    func liveDocumentFollowsTheDocument(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let reference = try store.document("users/u1")
        let user = LiveDocument(reference)
        #expect(user.isLoading && user.snapshot == nil)
        await TestSupport.waitUntil { !user.isLoading }
        #expect(user.snapshot?.exists == false && user.error == nil)

        try await reference.setData(["name": "Ada", "points": 1])
        await TestSupport.waitUntil { user.data?["points"] == .int(1) }
        #expect(user.exists && user.snapshot?.get("name") == "Ada")
        try await reference.updateData(["points": .increment(1)])
        await TestSupport.waitUntil { user.data?["points"] == .int(2) }
        try await reference.delete()
        await TestSupport.waitUntil { !user.exists }
        #expect(user.data == nil && user.error == nil)
        // A plain store is the source of truth for its data: never "from cache".
        #expect(!user.isFromCache && !store.isFromCache)
        #expect(user.snapshot?.metadata.isFromCache == false)
        await store.close()
    }

    @Test(arguments: DocumentEngineFactory.all)
    func liveQueryFollowsItsResults(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let paris = LiveQuery(users.whereField("city", isEqualTo: "Paris"))
        await TestSupport.waitUntil { !paris.isLoading }
        #expect(paris.documents.map(\.documentID) == ["u01", "u03", "u05", "u09"])
        #expect(paris.snapshot?.documentChanges.map(\.kind) == [.added, .added, .added, .added])

        try await users.document("u11").setData(["name": "Kim", "city": "Paris"])
        await TestSupport.waitUntil { paris.documents.count == 5 }
        #expect(paris.snapshot?.documentChanges.map(\.kind) == [.added])
        try await users.document("u01").updateData(["city": "Lyon"])
        await TestSupport.waitUntil { paris.documents.count == 4 }
        #expect(paris.documents.map(\.documentID) == ["u03", "u05", "u09", "u11"])
        #expect(paris.snapshot?.documentChanges.map(\.kind) == [.removed])
        try await users.document("u03").updateData(["points": 6])
        await TestSupport.waitUntil { paris.documents.first?.get("points") == .int(6) }
        #expect(paris.snapshot?.documentChanges.map(\.kind) == [.modified])
        #expect(!paris.isFromCache && paris.error == nil)
        await store.close()
    }

    @Test(arguments: DocumentEngineFactory.all)
    func liveAggregationFollowsItsResults(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let orders = try store.collection("orders")
        let totals = LiveAggregation(orders.aggregate([.count, .sum("total")]))
        await TestSupport.waitUntil { !totals.isLoading }
        #expect(totals.count == 0 && totals.value("sum(total)") == .int(0))

        try await orders.document("o1").setData(["total": 10])
        await TestSupport.waitUntil { totals.count == 1 }
        #expect(totals.value("sum(total)") == .int(10))
        try await orders.document("o2").setData(["total": 5])
        await TestSupport.waitUntil { totals.value("sum(total)") == .int(15) }
        #expect(totals.count == 2)
        try await orders.document("o1").delete()
        await TestSupport.waitUntil { totals.count == 1 }
        #expect(totals.value("sum(total)") == .int(5) && !totals.isFromCache && totals.error == nil)
        await store.close()
    }

    @Test func aQueryTheStoreCannotRunEndsWithItsError() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        // Equality on one field and order on another need a declared composite index.
        let ranked = LiveQuery(users.whereField("city", isEqualTo: "Paris").order(by: "points", descending: true))
        let count = LiveAggregation(users.aggregate([.sum("no..field")]))
        await TestSupport.waitUntil { !ranked.isLoading && !count.isLoading }
        #expect(ranked.error?.code == .missingIndex && ranked.snapshot == nil && ranked.documents.isEmpty)
        #expect(count.error?.code == .invalidField && count.snapshot == nil)
        await store.close()
    }

    @Test func aReleasedModelIsNotKeptAliveByItsListener() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        weak var released: LiveQuery?
        weak var releasedDocument: LiveDocument?
        do {
            let users = LiveQuery(try store.collection("users"))
            let user = LiveDocument(try store.document("users/u01"))
            await TestSupport.waitUntil { !users.isLoading && !user.isLoading }
            released = users
            releasedDocument = user
        }
        #expect(released == nil && releasedDocument == nil)
        // The store goes on without them.
        try await store.document("users/u01").updateData(["points": 11])
        let again = LiveQuery(try store.collection("users").whereField("points", isEqualTo: 11))
        await TestSupport.waitUntil { again.documents.count == 1 }
        await store.close()
    }

    @Test func aModelIsObservedWithoutSwiftUI() async throws {
        let store = try await T.store(.inMemory)
        let reference = try store.document("counters/c")
        let counter = LiveDocument(reference)
        await TestSupport.waitUntil { !counter.isLoading }
        // `withObservationTracking` tells of the next change to a property read in its `apply` closure.
        let changed = AsyncStream<Void>.makeStream()
        withObservationTracking {
            _ = counter.snapshot
        } onChange: {
            changed.continuation.yield()
        }
        try await reference.setData(["n": 1])
        var signals = changed.stream.makeAsyncIterator()
        await signals.next()
        await TestSupport.waitUntil { counter.data?["n"] == .int(1) }
        await store.close()
    }
}
