import DocumentEngineContract
@_spi(Engine) import Documents
import SuiteTestSupport
import Testing

/// Values whose index keys are longer than ``IndexKey/maximumLength`` are stored bounded (a prefix and a hash). These
/// tests pin queries over such values to Firestore's answers, computed here by brute force: every value below shares
/// its first 60 bytes, so all of them fall in one prefix group, where the index's order is the hash's, not the value's.
@Suite struct StoreBoundedKeyTests {
    typealias T = StoreTesting

    static let longPrefix = String(repeating: "a long shared prefix, ", count: 3)

    /// A long string: the shared prefix, then one of a few suffixes (so some values repeat).
    static func long(_ n: UInt64) -> String {
        longPrefix + "value \(n % 7) " + String(repeating: "z", count: Int(n % 3))
    }

    struct Row {
        var id: String
        var s: String
        var m: DocumentData
        var tags: [String]
    }

    static func rows() -> [Row] {
        var rng = ModelTestRandom(seed: 42)
        return (0..<40).map { i in
            let id = "d" + (i < 10 ? "0" : "") + String(i)
            return Row(
                id: id, s: long(rng.next()),
                m: ["a": .string(long(rng.next())), "n": .int(Int64(rng.next() % 3))],
                tags: [long(rng.next()), long(rng.next())])
        }
    }

    static func seed(_ store: DocumentStore) async throws -> [Row] {
        let rows = rows()
        let batch = store.batch()
        for row in rows {
            batch.setData(
                ["s": .string(row.s), "m": .map(row.m), "tags": .array(row.tags.map { .string($0) })],
                forDocument: try store.document("items/" + row.id))
        }
        try await batch.commit()
        // A few writes after the batch, so the SQLite engines also hold pending (unflushed) operations.
        for row in rows.prefix(5) {
            try await store.document("items/" + row.id).setData(["s": .string(row.s + "!")], merge: true)
        }
        return rows.enumerated().map { i, row in
            var row = row
            if i < 5 { row.s += "!" }
            return row
        }
    }

    /// A store over a fresh engine with ``rows()`` written, and its collection.
    static func seededStore(_ factory: DocumentEngineFactory) async throws -> ([Row], CollectionReference) {
        let store = try await T.store(factory)
        return (try await seed(store), try store.collection("items"))
    }

    static func ids(_ q: Query) async throws -> [String] { T.ids(try await q.getDocuments()) }

    /// Ids in Firestore order of `value` (then id), ascending or descending.
    static func ordered(_ rows: [Row], by value: (Row) -> DocumentValue, descending: Bool = false) -> [String] {
        let sorted = rows.sorted { a, b in
            let c = DocumentValue.compare(value(a), value(b))
            if c != 0 { return descending ? c > 0 : c < 0 }
            return descending ? a.id > b.id : a.id < b.id
        }
        return sorted.map(\.id)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func orderingAndLimitsFollowValuesWithinAPrefixGroup(_ factory: DocumentEngineFactory) async throws {
        let (rows, items) = try await Self.seededStore(factory)
        let byS: (Row) -> DocumentValue = { .string($0.s) }
        let byM: (Row) -> DocumentValue = { .map($0.m) }

        for limit in [1, 3, 7, 40] {
            #expect(
                try await Self.ids(items.order(by: "s").limit(to: limit))
                    == Array(Self.ordered(rows, by: byS).prefix(limit))
            )
            #expect(
                try await Self.ids(items.order(by: "s", descending: true).limit(to: limit))
                    == Array(Self.ordered(rows, by: byS, descending: true).prefix(limit)))
            #expect(
                try await Self.ids(items.order(by: "m").limit(to: limit))
                    == Array(Self.ordered(rows, by: byM).prefix(limit))
            )
            #expect(
                try await Self.ids(items.order(by: "s").limit(toLast: limit))
                    == Array(Self.ordered(rows, by: byS).suffix(limit)))
        }
        // Range bounds longer than a bounded key's prefix, and a cursor on a long value.
        let pivot = rows[7].s
        let above = rows.filter { DocumentValue.compare(.string($0.s), .string(pivot)) > 0 }
        #expect(
            try await Self.ids(items.whereField("s", isGreaterThan: .string(pivot))) == Self.ordered(above, by: byS))
        let atMost = rows.filter { DocumentValue.compare(.string($0.s), .string(pivot)) <= 0 }
        #expect(
            try await Self.ids(
                items.whereField("s", isLessThanOrEqualTo: .string(pivot)).order(by: "s", descending: true))
                == Self.ordered(atMost, by: byS, descending: true))
        #expect(
            try await Self.ids(items.order(by: "s").start(after: [.string(pivot)]).limit(to: 5))
                == Array(Self.ordered(above, by: byS).prefix(5)))
        #expect(try await items.whereField("s", isGreaterThan: .string(pivot)).count() == above.count)
    }

    @Test(arguments: DocumentEngineFactory.all)
    func equalityNegationAndContainsOnLongValues(_ factory: DocumentEngineFactory) async throws {
        let (rows, items) = try await Self.seededStore(factory)

        let value = rows[3].s
        let equal = rows.filter { $0.s == value }.map(\.id)
        #expect(equal.count >= 1)
        #expect(try await Self.ids(items.whereField("s", isEqualTo: .string(value))) == equal)
        #expect(try await items.whereField("s", isEqualTo: .string(value)).count() == equal.count)
        let others = rows.filter { $0.s != value }
        #expect(
            try await Self.ids(items.whereField("s", isNotEqualTo: .string(value)))
                == Self.ordered(others, by: { .string($0.s) }))
        #expect(try await items.whereField("s", isNotEqualTo: .string(value)).count() == others.count)

        let map = DocumentValue.map(rows[5].m)
        let sameMap = rows.filter { DocumentValue.compare(.map($0.m), map) == 0 }.map(\.id)
        #expect(try await Self.ids(items.whereField("m", isEqualTo: map)) == sameMap)

        let tag = rows[9].tags[1]
        let tagged = rows.filter { $0.tags.contains(tag) }.map(\.id)
        #expect(try await Self.ids(items.whereField("tags", arrayContains: .string(tag))) == tagged)
        #expect(try await items.whereField("tags", arrayContains: .string(tag)).count() == tagged.count)
        // A long value no document has: nothing, though its key shares the group's prefix.
        #expect(try await Self.ids(items.whereField("s", isEqualTo: .string(Self.longPrefix + "absent"))).isEmpty)
    }

    @Test func boundedKeysAreShortAndKeepEqualityAndPrefixOrder() {
        let short = IndexKey.encode(.string("short"))
        #expect(IndexKey.bounded(short) == short)
        let a = IndexKey.encode(.string(Self.long(1)))
        let b = IndexKey.encode(.string(Self.long(2)))
        let boundedA = IndexKey.bounded(a)
        #expect(a.count > IndexKey.maximumLength)
        #expect(boundedA.count == IndexKey.maximumLength + 1)
        #expect(boundedA == IndexKey.bounded(a))
        #expect(boundedA != IndexKey.bounded(b))
        #expect(Array(boundedA[0..<IndexKey.boundedPrefixLength]) == Array(a[0..<IndexKey.boundedPrefixLength]))
        // A key that differs within the prefix keeps its order against a bounded one.
        let z = IndexKey.bounded(IndexKey.encode(.string("b" + Self.long(1))))
        #expect(z.lexicographicallyPrecedes(boundedA) == IndexKey.encode(.string("b")).lexicographicallyPrecedes(a))
    }
}
