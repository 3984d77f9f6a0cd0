import DocumentEngineContract
import Foundation
import Logging
import SuiteCore
import Testing

@testable import Documents

@Suite struct StoreQueryTests {
    typealias T = StoreTesting

    @Test(arguments: DocumentEngineFactory.all)
    func eachOperator(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        func ids(_ q: Query) async throws -> [String] { T.ids(try await q.getDocuments()) }

        #expect(try await ids(users.whereField("city", isEqualTo: .string("Paris"))) == ["u01", "u03", "u05", "u09"])
        // Numbers compare numerically across int and double; only numbers match a numeric range.
        #expect(try await ids(users.whereField("points", isEqualTo: .double(25))) == ["u02"])
        #expect(try await ids(users.whereField("points", isGreaterThan: .int(20))) == ["u02", "u05", "u04", "u09"])
        #expect(
            try await ids(users.whereField("points", isGreaterThanOrEqualTo: .int(25))) == ["u02", "u05", "u04", "u09"])
        #expect(try await ids(users.whereField("points", isLessThan: .int(10))) == ["u07", "u03"])
        #expect(try await ids(users.whereField("points", isLessThanOrEqualTo: .int(10))) == ["u07", "u03", "u01"])
        #expect(try await ids(users.whereField("points", isGreaterThan: .string(""))) == ["u06"])
        // != and not-in need the field to exist and not be null.
        #expect(
            try await ids(users.whereField("city", isNotEqualTo: .string("Paris"))) == [
                "u02", "u06", "u10", "u04", "u08",
            ])
        #expect(try await ids(users.whereField("points", isNotEqualTo: .null)).count == 9)
        #expect(
            try await ids(users.whereField("city", notIn: [.string("Paris"), .string("Lyon")])) == ["u04", "u08"])
        #expect(
            try await ids(users.whereField("city", in: [.string("Nice"), .string("Lyon")]))
                == ["u02", "u04", "u06", "u08", "u10"])
        #expect(try await ids(users.whereField("tags", arrayContains: .string("coffee"))) == ["u01", "u04", "u09"])
        #expect(
            try await ids(users.whereField("tags", arrayContainsAny: [.string("juice"), .string("tea")]))
                == ["u01", "u02", "u05", "u09"])
        #expect(try await ids(users.whereField("address.city", isEqualTo: .string("Paris"))) == ["u07"])
        #expect(
            try await ids(
                users.whereField("address", isEqualTo: .map(["city": .string("Paris"), "zip": .string("75001")]))) == [
                    "u07"
                ])
        #expect(try await ids(users.whereField("tags", isEqualTo: .array([.string("tea")]))) == ["u02"])
        // Several equalities (index intersection).
        #expect(
            try await ids(
                users.whereField("city", isEqualTo: .string("Paris")).whereField("points", isEqualTo: .int(10)))
                == ["u01"])
    }

    /// Firestore: `!=` matches documents where the field "exists with a value other than" the operand "or null", and
    /// `not-in` likewise; found by the query differential fuzzer (all engines returned null fields).
    @Test(arguments: DocumentEngineFactory.all)
    func notEqualAndNotInSkipNullFields(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let items = try store.collection("items")
        let batch = store.batch()
        let rows: [(String, DocumentData)] = [
            ("n", ["v": .null, "k": 1]), ("one", ["v": 1, "k": 1]), ("s", ["v": "s", "k": 1]), ("missing", ["k": 1]),
            ("map", ["v": [:], "k": 1]),
        ]
        for (id, data) in rows { batch.setData(data, forDocument: try items.document(id)) }
        try await batch.commit()
        func ids(_ q: Query) async throws -> [String] { T.ids(try await q.getDocuments()) }

        // Single-field index scans (ordered by the field) and counts from index hits alone.
        #expect(try await ids(items.whereField("v", isNotEqualTo: .map([:]))) == ["one", "s"])
        #expect(try await items.whereField("v", isNotEqualTo: .map([:])).count() == 2)
        #expect(try await ids(items.whereField("v", notIn: [.int(1)])) == ["s", "map"])
        #expect(try await items.whereField("v", notIn: [.int(1)]).count() == 2)
        #expect(try await ids(items.whereField("v", isNotEqualTo: .null)) == ["one", "s", "map"])
        #expect(try await ids(items.whereField("v", notIn: [.int(1), .null])).isEmpty)
        #expect(try await items.whereField("v", notIn: [.int(1), .null]).count() == 0)
        // Checked on the documents: a declared index serves an equality and the inequality.
        try await store.declareIndex(IndexDefinition(collectionID: "items", fields: [try .init("k"), try .init("v")]))
        let withEquality = items.whereField("k", isEqualTo: 1).whereField("v", isNotEqualTo: .string("s"))
        #expect(try await ids(withEquality) == ["one", "map"])
        #expect(try await withEquality.count() == 2)
    }

    /// Firestore compares strings by their UTF-8 bytes: `"é"` (U+00E9) and `"e\u{301}"` are different values, though
    /// Swift's `==` calls them equal. Documents were checked with Swift's `==`, so `!=` and `not-in` dropped the other
    /// spelling and `in` on the documents' side kept it. Found by the query differential fuzzer.
    @Test(arguments: DocumentEngineFactory.all)
    func stringsAreEqualByTheirUTF8BytesNotByCanonicalEquivalence(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let items = try store.collection("items")
        let (composed, decomposed) = ("\u{E9}", "e\u{301}")
        let batch = store.batch()
        batch.setData(
            ["s": .string(composed), "k": 1, "tags": [.string(composed)]], forDocument: try items.document("one"))
        batch.setData(
            ["s": .string(decomposed), "k": 1, "tags": [.string(decomposed)]], forDocument: try items.document("two"))
        try await batch.commit()
        func ids(_ q: Query) async throws -> [String] { T.ids(try await q.getDocuments()) }

        #expect(try await ids(items.whereField("s", isEqualTo: .string(composed))) == ["one"])
        #expect(try await ids(items.whereField("s", isNotEqualTo: .string(composed))) == ["two"])
        #expect(try await ids(items.whereField("s", notIn: [.string(decomposed)])) == ["one"])
        #expect(try await ids(items.whereField("s", in: [.string(decomposed)])) == ["two"])
        #expect(try await ids(items.whereField("tags", arrayContains: .string(decomposed))) == ["two"])
        // Checked on the documents: an or whose branches each read an index, and an equality with a declared index.
        let either = items.whereFilter(.or([.whereField("s", .equal, .string(composed)), .whereField("k", .equal, 2)]))
        #expect(try await ids(either) == ["one"])
        try await store.declareIndex(IndexDefinition(collectionID: "items", fields: [try .init("k"), try .init("s")]))
        #expect(
            try await ids(items.whereField("k", isEqualTo: 1).whereField("s", isNotEqualTo: .string(decomposed))) == [
                "one"
            ])
        // arrayRemove removes the same bytes only.
        _ = try await items.document("one").updateData(["tags": .arrayRemove([.string(decomposed)])])
        #expect(try await items.document("one").getDocument().get("tags") == .array([.string(composed)]))
    }

    /// NaN sorts first among numbers, but a range filter never matches it, whichever way its index runs: `a < 0.5`
    /// counted a NaN from the hits of a descending index (a `limitToLast` flips the scan). Found by the query
    /// differential fuzzer (seed 7037, query 6).
    @Test(arguments: DocumentEngineFactory.all)
    func rangeFiltersNeverMatchNaNInEitherDirection(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let items = try store.collection("items")
        try await items.document("nan").setData(["a": .double(.nan), "c": 1])
        try await items.document("zero").setData(["a": 0, "c": 2])
        try await items.document("one").setData(["a": 1, "c": 3])
        try await store.declareIndex(IndexDefinition(collectionID: "items", fields: [try .init("a"), try .init("c")]))
        try await store.declareIndex(
            IndexDefinition(
                collectionID: "items",
                fields: [try .init("a", order: .descending), try .init("c", order: .descending)]))
        for descending in [false, true] {
            let single = items.whereField("a", isLessThan: 0.5).order(by: "a", descending: descending)
            #expect(T.ids(try await single.getDocuments()) == ["zero"])
            #expect(try await single.count() == 1)
            let declared = items.whereField("a", isLessThanOrEqualTo: 0.5).order(by: "a", descending: descending)
                .order(by: "c", descending: descending)
            #expect(T.ids(try await declared.getDocuments()) == ["zero"])
            #expect(try await declared.count() == 1)
            #expect(try await declared.limit(toLast: 5).count() == 1)
        }
    }

    /// A batch and a transaction writing two paths that differ only by their Unicode normalization write two
    /// documents. The store's commit gave both one slot (a dictionary keyed by Swift strings), so one write was lost.
    @Test(arguments: DocumentEngineFactory.all)
    func aBatchWritingCanonicallyEquivalentPathsWritesBoth(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let items = try store.collection("items")
        let (composed, decomposed) = (try items.document("\u{E9}"), try items.document("e\u{301}"))
        let batch = store.batch()
        batch.setData(["n": 1], forDocument: composed)
        batch.setData(["n": 2], forDocument: decomposed)
        try await batch.commit()
        #expect(try await composed.getDocument().get("n") == 1)
        #expect(try await decomposed.getDocument().get("n") == 2)
        try await store.runTransaction { transaction in
            let one = try await transaction.getDocument(composed).get("n")
            let two = try await transaction.getDocument(decomposed).get("n")
            transaction.setData(["n": one.map { _ in 10 } ?? 0], forDocument: composed)
            transaction.setData(["n": two.map { _ in 20 } ?? 0], forDocument: decomposed)
        }
        #expect(try await composed.getDocument().get("n") == 10)
        #expect(try await decomposed.getDocument().get("n") == 20)
    }

    /// Two collections whose names differ only by their Unicode normalization have indexes of their own, written one
    /// document at a time, in one bulk batch and by a backfill. The SQLite engine's cache of index ids, a bulk batch's
    /// table of index names and a backfill's paths were keyed by Swift strings, which call the names equal. Found by
    /// the query differential fuzzer's review.
    @Test(arguments: DocumentEngineFactory.all)
    func collectionsDifferingByNormalizationHaveTheirOwnIndexes(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let composed = try store.collection("\u{E9}")
        let decomposed = try store.collection("e\u{301}")
        try await composed.document("a").setData(["x": 1, "k": 1])
        try await decomposed.document("a").setData(["x": 1, "k": 2])
        let batch = store.batch()
        for i in 0..<3 {
            batch.setData(["x": 1, "k": 1], forDocument: try composed.document("b\(i)"))
            batch.setData(["x": 1, "k": 2], forDocument: try decomposed.document("b\(i)"))
        }
        try await batch.commit()
        func paths(_ q: Query) async throws -> [[UInt8]] {
            try await q.getDocuments().documents.map { Array($0.path.string.utf8) }
        }
        let composedPaths = ["a", "b0", "b1", "b2"].map { Array("\u{E9}/\($0)".utf8) }
        let decomposedPaths = ["a", "b0", "b1", "b2"].map { Array("e\u{301}/\($0)".utf8) }
        #expect(try await paths(composed.whereField("x", isEqualTo: 1)) == composedPaths)
        let got = try await paths(decomposed.whereField("x", isEqualTo: 1))
        #expect(got == decomposedPaths, "\(got)")
        // A declared index, backfilled over both collections' documents, then used by a query of each.
        for id in ["\u{E9}", "e\u{301}"] {
            try await store.declareIndex(IndexDefinition(collectionID: id, fields: [try .init("x"), try .init("k")]))
        }
        let composedQuery = composed.whereField("x", isEqualTo: 1).order(by: "k")
        let decomposedQuery = decomposed.whereField("x", isEqualTo: 1).order(by: "k")
        #expect(try await paths(composedQuery) == composedPaths)
        #expect(try await paths(decomposedQuery) == decomposedPaths)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func orAndComposition(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let q = users.whereFilter(
            .or([
                .whereField("city", .equal, .string("Nice")),
                .and([.whereField("city", .equal, .string("Paris")), .whereField("age", .equal, .int(22))]),
                .whereField("name", .equal, .string("Jo")),
            ]))
        #expect(T.ids(try await q.getDocuments()) == ["u03", "u04", "u08", "u10"])
        let plan = try await q.explain()
        #expect(plan.strategy == "index union")
        #expect(!plan.usesCollectionScan)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func orderLimitAndCursors(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let byAge = users.order(by: "age")
        #expect(T.ids(try await byAge.limit(to: 3).getDocuments()) == ["u07", "u03", "u09"])
        #expect(
            T.ids(try await users.order(by: "age", descending: true).limit(to: 2).getDocuments()) == ["u08", "u06"])
        #expect(T.ids(try await byAge.limit(toLast: 2).getDocuments()) == ["u06", "u08"])
        #expect(T.ids(try await byAge.start(at: [.int(41)]).getDocuments()) == ["u02", "u10", "u06", "u08"])
        #expect(T.ids(try await byAge.start(after: [.int(41)]).limit(to: 2).getDocuments()) == ["u10", "u06"])
        #expect(T.ids(try await byAge.end(at: [.int(27)]).getDocuments()) == ["u07", "u03", "u09"])
        #expect(T.ids(try await byAge.end(before: [.int(27)]).getDocuments()) == ["u07", "u03"])
        // Pagination by snapshot.
        let first = try await byAge.limit(to: 4).getDocuments()
        let next = try await byAge.start(afterDocument: first.documents[3]).limit(to: 4).getDocuments()
        #expect(T.ids(next) == ["u05", "u01", "u02", "u10"])
        // Ordering by a field excludes documents without it.
        #expect(try await users.order(by: "tags").getDocuments().count == 6)
        // Ties break by document name in the direction of the last order.
        #expect(T.ids(try await users.whereField("points", isEqualTo: .int(25)).getDocuments()) == ["u02"])
        #expect(
            T.ids(
                try await users.whereField("city", isEqualTo: .string("Lyon")).order(by: "__name__", descending: true)
                    .getDocuments())
                == ["u10", "u06", "u02"])
    }

    @Test(arguments: DocumentEngineFactory.all)
    func documentIDFilters(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        #expect(T.ids(try await users.whereField("__name__", isEqualTo: .string("u03")).getDocuments()) == ["u03"])
        #expect(
            T.ids(
                try await users.whereField(
                    FieldPath.documentID, .in, .array([.string("u09"), .reference("users/u02")])
                ).getDocuments())
                == ["u02", "u09"])
        #expect(
            T.ids(try await users.whereField("__name__", isGreaterThanOrEqualTo: .string("u08")).getDocuments())
                == ["u08", "u09", "u10"])
        #expect(
            T.ids(try await users.whereField("__name__", isLessThan: .string("u03")).getDocuments()) == ["u01", "u02"])
        #expect(
            T.ids(
                try await users.whereField("city", isEqualTo: .string("Paris")).whereField(
                    "__name__", isGreaterThan: .string("u03")
                ).getDocuments())
                == ["u05", "u09"])
        #expect(
            T.ids(try await users.order(by: "__name__", descending: true).limit(to: 2).getDocuments()) == [
                "u10", "u09",
            ])
    }

    @Test(arguments: DocumentEngineFactory.all)
    func masksAndAggregations(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let masked = try await users.whereField("name", isEqualTo: .string("Gus")).select(["name", "address.zip"])
            .getDocuments()
        #expect(masked.documents.first?.data == ["name": .string("Gus"), "address": .map(["zip": .string("75001")])])
        #expect(try await users.count() == 10)
        #expect(try await users.whereField("city", isEqualTo: .string("Paris")).count() == 4)
        #expect(try await users.whereField("city", isEqualTo: .string("Paris")).limit(to: 2).count() == 2)
        #expect(try await users.whereField("city", isEqualTo: .string("Lyon")).sum("points") == .int(40))
        #expect(try await users.whereField("city", isEqualTo: .string("Paris")).sum("points") == .double(140.5))
        #expect(try await users.whereField("city", isEqualTo: .string("Lyon")).average("points") == 20)
        #expect(try await users.whereField("city", isEqualTo: .string("Nowhere")).average("points") == nil)
        let snapshot = try await users.whereField("age", isGreaterThan: .int(40))
            .aggregate([.count, .sum("age"), .average("age")]).get()
        #expect(snapshot.count == 4)
        #expect(snapshot.get("sum(age)") == .int(197))
        #expect(snapshot.get("average(age)") == .double(49.25))
    }

    @Test(arguments: DocumentEngineFactory.all)
    func compositeIndexesAndMissingIndexErrors(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let query = users.whereField("city", isEqualTo: .string("Paris")).order(by: "points", descending: true)
        let error = await T.documentsError { _ = try await query.getDocuments() }
        #expect(error?.code == .missingIndex)
        #expect(error?.message.contains("users (city asc, points desc)") == true)
        #expect(error?.message.contains("suite docs index add users city:asc points:desc") == true)
        let twoOrders = await T.documentsError { _ = try await users.order(by: "city").order(by: "age").getDocuments() }
        #expect(twoOrders?.message.contains("users (city asc, age asc)") == true)

        try await store.declareIndex(
            IndexDefinition(
                collectionID: "users",
                fields: [.init(try FieldPath("city")), .init(try FieldPath("points"), order: .descending)]))
        #expect(T.ids(try await query.getDocuments()) == ["u09", "u05", "u01", "u03"])
        // Same index, all directions reversed.
        let ascending = users.whereField("city", isEqualTo: .string("Paris")).order(by: "points")
        #expect(T.ids(try await ascending.getDocuments()) == ["u03", "u01", "u05", "u09"])
        let ranged = users.whereField("city", isEqualTo: .string("Paris")).whereField("points", isGreaterThan: .int(5))
            .order(by: "points", descending: true)
        #expect(T.ids(try await ranged.getDocuments()) == ["u09", "u05", "u01"])
        let plan = try await ranged.explain()
        #expect(plan.strategy == "index scan")
        #expect(plan.indexes.first?.contains("composite") == true)
        // New writes maintain the declared index.
        try await users.document("u11").setData(["city": "Paris", "points": 50])
        #expect(T.ids(try await ranged.limit(to: 2).getDocuments()) == ["u09", "u11"])
        #expect(try await store.indexes().count == 1)
    }

    /// `array-contains` on an array field ordered by that same field needs an index listing it twice (contains, then
    /// ordered); the missing-index error named that index but declaring it was refused ("lists the same field
    /// twice"), so the valid query could never run. Found by the query differential fuzzer.
    @Test(arguments: DocumentEngineFactory.all)
    func filteringAndOrderingOneArrayFieldNamesAnIndexThatCanBeDeclared(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let query = users.whereField("tags", arrayContains: "coffee").order(by: "tags", descending: true)
        let error = await T.documentsError { _ = try await query.getDocuments() }
        #expect(error?.code == .missingIndex)
        #expect(error?.message.contains("users (tags contains, tags desc)") == true)
        let tags = try FieldPath("tags")
        try await store.declareIndex(
            IndexDefinition(
                collectionID: "users", fields: [.init(tags, order: .arrayContains), .init(tags, order: .descending)]))
        #expect(T.ids(try await query.getDocuments()) == ["u01", "u09", "u04"])
        #expect(try await query.count() == 3)
        // A field ordered twice is still refused.
        let twice = await T.documentsError {
            try await store.declareIndex(
                IndexDefinition(collectionID: "users", fields: [.init(tags), .init(tags, order: .descending)]))
        }
        #expect(twice?.code == .invalidQuery)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func collectionGroupQueries(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        for (user, total) in [("a", 5), ("b", 15), ("c", 25)] {
            try await store.document("users/\(user)/orders/o1").setData([
                "total": FieldValue(.int(Int64(total))), "status": "open",
            ])
        }
        try await store.document("orders/top").setData(["total": 100, "status": "closed"])
        let group = try store.collectionGroup("orders")
        #expect(try await group.getDocuments().count == 4)
        let filtered = group.whereField("total", isGreaterThan: .int(10))
        let error = await T.documentsError { _ = try await filtered.getDocuments() }
        #expect(error?.code == .missingIndex)
        #expect(error?.message.contains("--group") == true)
        try await store.declareIndex(
            IndexDefinition(collectionID: "orders", scope: .collectionGroup, fields: [.init(try FieldPath("total"))]))
        #expect(
            try await filtered.getDocuments().documents.map(\.path.string) == [
                "users/b/orders/o1", "users/c/orders/o1", "orders/top",
            ])
    }

    @Test(arguments: DocumentEngineFactory.all)
    func validation(_ factory: DocumentEngineFactory) async throws {
        let store = try await T.store(factory)
        let users = try store.collection("users")
        let many = (0..<31).map { DocumentValue.int(Int64($0)) }
        let cases: [Query] = [
            users.whereField("a", in: many),
            users.whereField("a", arrayContainsAny: many),
            users.whereField("a", notIn: Array(many.prefix(11))),
            users.whereField("a", arrayContains: .int(1)).whereField("b", arrayContains: .int(1)),
            users.whereField("a", isGreaterThan: .int(1)).order(by: "b"),
            users.whereField("a", isLessThan: .null),
            users.limit(toLast: 1),
            users.limit(to: 0),
            users.whereField("a", in: []),
            users.whereField("a..b", isEqualTo: .int(1)),
        ]
        for query in cases {
            let error = await T.documentsError { _ = try await query.getDocuments() }
            #expect(error?.code == .invalidQuery)
        }
    }

    @Test func explainUsesAnIndexNotACollectionScan() async throws {
        let store = try await T.store(.sqlite)
        let orders = try store.collection("orders")
        var index = 0
        while index < 2000 {
            let batch = store.batch()
            for i in index..<(index + 500) {
                batch.setData(
                    [
                        "status": FieldValue(.string(i % 100 == 0 ? "rare" : "common")),
                        "total": FieldValue(.int(Int64(i))),
                    ],
                    forDocument: try orders.document(String(format: "o%05d", i)))
            }
            try await batch.commit()
            index += 500
        }
        let plan = try await orders.whereField("status", isEqualTo: .string("rare")).explain()
        #expect(plan.strategy == "index scan")
        #expect(plan.indexes == ["orders|status"])
        #expect(!plan.usesCollectionScan)
        #expect(plan.results == 20)
        #expect(plan.indexEntriesScanned == 20)
        #expect(plan.documentsRead == 20)
        let range = try await orders.whereField("total", isGreaterThanOrEqualTo: .int(1990)).explain()
        #expect(range.results == 10)
        #expect(range.indexEntriesScanned == 10)
        #expect(!range.usesCollectionScan)
        let json = plan.json
        #expect(json["strategy"] == .string("index scan"))
        let limited = try await orders.order(by: "total", descending: true).limit(to: 5).explain()
        #expect(limited.documentsRead == 5)
        #expect(try await orders.count() == 2000)
    }
}

@Suite struct StoreIndexAcrossProcessesTests {
    @Test func declaringCatchesUpWithWritesOfAStoreThatHasNotSeenTheIndexYet() async throws {
        let path = try TemporaryFiles.newDatabasePath()
        // The writer trusts the index list it read first (none) for an hour: it writes no entry for the new index.
        var trusting = DocumentStore.Options()
        trusting.indexRefreshInterval = .seconds(3600)
        let writer = DocumentStore(engine: try SQLiteDocumentEngine(path: path), options: trusting)
        // The declarer's wait for other stores to see the index tells the test, and lasts until the writer wrote.
        let (refreshWaits, refreshWait) = AsyncStream.makeStream(of: Void.self)
        let (writes, written) = AsyncStream.makeStream(of: Void.self)
        defer { written.finish() }
        let declarer = DocumentStore(
            engine: try SQLiteDocumentEngine(path: path), bus: nil, clock: SystemWallClock(), limits: .default,
            logger: Logger(label: "test"), options: DocumentStore.Options(), queryLimiter: nil,
            waitForIndexRefresh: { _ in
                refreshWait.yield()
                for await _ in writes {}
            })
        try await writer.document("users/a").setData(["city": "Paris", "points": 1])
        let definition = IndexDefinition(
            collectionID: "users", fields: [try .init(parsing: "city"), try .init(parsing: "points:desc")])
        let declaring = Task {
            defer { refreshWait.finish() }
            try await declarer.declareIndex(definition)
        }
        // The index is saved and backfilled (with a); b is written after the backfill, before the catch-up.
        var waits = refreshWaits.makeAsyncIterator()
        try #require(await waits.next() != nil, "declareIndex ended without waiting for the refresh")
        try await writer.document("users/b").setData(["city": "Paris", "points": 2])
        written.finish()
        try await declaring.value
        let query = try declarer.collection("users").whereField("city", isEqualTo: .string("Paris"))
            .order(by: "points", descending: true)
        #expect(StoreTesting.ids(try await query.getDocuments()) == ["b", "a"])
        #expect(try await query.count() == 2)
    }
}
