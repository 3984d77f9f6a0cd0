import SuiteTestSupport
import Testing

@_spi(Engine) @testable import Documents

/// The single-write fast path computes index keys by composition (a map's key from its fields' keys, an array's from
/// its elements'); these tests pin it to the plain per-value encoding.
@Suite("Store write path")
struct StoreWritePathTests {
    /// The entries as the store computed them before composing keys: every value encoded on its own, then bounded.
    static func referenceEntries(_ data: DocumentData, collectionPath: String) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        func walk(_ map: [String: DocumentValue], segments: [String]) {
            for (name, value) in map {
                guard let field = try? FieldPath(segments: segments + [name]) else { continue }
                let index = collectionPath + "|" + field.canonicalString
                entries.append(IndexEntry(index: index, key: IndexKey.bounded(IndexKey.encode(value))))
                switch value {
                case .array(let elements):
                    var seen = Set<[UInt8]>()
                    for element in elements {
                        let key = IndexKey.bounded(IndexKey.encode(element))
                        if seen.insert(key).inserted {
                            entries.append(IndexEntry(index: index + "|contains", key: key))
                        }
                    }
                case .map(let nested):
                    walk(nested, segments: segments + [name])
                default:
                    break
                }
            }
        }
        walk(data, segments: [])
        return entries
    }

    @Test func composedKeysEqualEncodedKeys() {
        var rng = ModelTestRandom(seed: 31)
        for _ in 0..<5_000 {
            let value = ModelValueGenerator.value(&rng)
            switch value {
            case .array(let elements):
                #expect(IndexKey.arrayKey(elementKeys: elements.map { IndexKey.encode($0) }) == IndexKey.encode(value))
            case .map(let map):
                let fields = map.map { (name: $0.key, key: IndexKey.encode($0.value)) }
                #expect(IndexKey.mapKey(fields: fields) == IndexKey.encode(value), "\(value)")
            default:
                break
            }
        }
        #expect(IndexKey.mapKey(fields: []) == IndexKey.encode(.map([:])))
        #expect(IndexKey.arrayKey(elementKeys: []) == IndexKey.encode(.array([])))
    }

    @Test func entriesMatchPerValueEncoding() {
        var rng = ModelTestRandom(seed: 58)
        for _ in 0..<3_000 {
            let data = ModelValueGenerator.data(&rng)
            let entries = IndexPolicy.entries(
                for: data, path: "users/u1", collectionPath: "users", collectionID: "users", declared: [])
            #expect(entries == Self.referenceEntries(data, collectionPath: "users"), "\(data)")
        }
        let order = ModelValueGenerator.order(3)
        let entries = IndexPolicy.entries(
            for: order, path: "a/b/orders/o1", collectionPath: "a/b/orders", collectionID: "orders", declared: [])
        #expect(entries == Self.referenceEntries(order, collectionPath: "a/b/orders"))
    }

    /// One batch holding the documents of two collections (its name cache warm across documents; nested, quoted and
    /// invalid field names) gives each document the entries the reference gives it, also once reordered.
    @Test func batchedEntriesMatchTheReferencePerDocument() {
        var rng = ModelTestRandom(seed: 91)
        var batch = IndexEntryBatch()
        var expected: [[IndexEntry]] = []
        for n in 0..<2_000 {
            let (collection, id) = n % 2 == 0 ? ("users", "users") : ("a/b/orders", "orders")
            let data = n % 10 == 0 ? ModelValueGenerator.order(n) : ModelValueGenerator.data(&rng)
            IndexPolicy.appendEntries(
                for: data, path: "\(collection)/d\(n)", collectionPath: collection, collectionID: id, declared: [],
                into: &batch)
            expected.append(Self.referenceEntries(data, collectionPath: collection))
        }
        #expect(batch.documentCount == expected.count)
        #expect(batch.entryCount == expected.reduce(0) { $0 + $1.count })
        #expect(Set(batch.names).count == batch.names.count)
        for n in expected.indices {
            #expect(batch.entries(ofDocument: n) == expected[n], "document \(n)")
            var visited: [IndexEntry] = []
            batch.forEachEntry(ofDocument: n) { visited.append(IndexEntry(index: batch.names[$0], key: Array($1))) }
            #expect(visited == expected[n])
        }
        var order = Array(expected.indices)
        order.shuffle(using: &rng)
        let reordered = batch.reordered(order)
        for i in order.indices { #expect(reordered.entries(ofDocument: i) == expected[order[i]]) }
        // Reordering a reordered batch composes the two orders.
        let back = reordered.reordered(order.indices.sorted { order[$0] < order[$1] })
        for n in expected.indices { #expect(back.entries(ofDocument: n) == expected[n]) }
    }

    /// The importer's chunk order (integer keys of the bytes after the collection prefix) against a plain sort of
    /// the paths' bytes: short ids, ids sharing their first eight bytes, repeated ids (kept in the order given),
    /// multi-byte characters.
    @Test func importChunksSortLikeTheirPathsBytes() {
        var rng = ModelTestRandom(seed: 5)
        let pieces = ["a", "ab", "abcdefgh", "abcdefghi", "é", "\u{1F600}", "Z", "0", "a-b", "~"]
        for _ in 0..<50 {
            let paths = (0..<200).map { _ in
                "users/u1/orders/"
                    + (0..<Int.random(in: 1...3, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
                    .joined()
            }
            let expected = paths.indices.sorted { a, b in
                paths[a].utf8.elementsEqual(paths[b].utf8)
                    ? a < b : paths[a].utf8.lexicographicallyPrecedes(paths[b].utf8)
            }
            #expect(DocumentImporter.pathOrder(paths, sharedPrefix: "users/u1/orders/".utf8.count) == expected)
        }
    }

    /// The store's name cache, kept from write to write, gives every write the reference entries: documents of two
    /// collections, then more distinct field names than it keeps (it starts over), then the first ones again.
    @Test func nameCacheGivesEachWriteItsEntries() {
        let cache = IndexPolicy.NameCache()
        var rng = ModelTestRandom(seed: 23)
        func check(_ data: DocumentData, _ collection: String) {
            let entries = cache.entries(
                for: data, path: collection + "/d", collectionPath: collection,
                collectionID: String(collection.split(separator: "/").last!), declared: [])
            #expect(entries == Self.referenceEntries(data, collectionPath: collection), "\(data)")
        }
        let first = (0..<500).map { _ in ModelValueGenerator.data(&rng) }
        for (n, data) in first.enumerated() { check(data, n % 2 == 0 ? "users" : "a/b/orders") }
        for n in 0..<(IndexPolicy.NameCache.capacity + 50) { check(["f\(n)": .int(Int64(n))], "users") }
        for (n, data) in first.enumerated() { check(data, n % 2 == 0 ? "users" : "a/b/orders") }
    }

    @Test func bulkPutsNeedOneBodyAndOneDocumentOfEntriesPerPath() throws {
        var entries = IndexEntryBatch()
        entries.append(IndexEntry(index: "c|a", key: [1]))
        entries.endDocument()
        let puts = try BulkPuts(paths: ["c/d"], bodies: [[7]], entries: entries)
        #expect(
            puts.mutations() == [
                DocumentMutation(path: "c/d", kind: .put(body: [7], indexEntries: [IndexEntry(index: "c|a", key: [1])]))
            ])
        for (paths, bodies) in [(["c/d", "c/e"], [[7], [8]]), (["c/d"], []) as ([String], [[UInt8]])] {
            let error = #expect(throws: DocumentsError.self) {
                try BulkPuts(paths: paths, bodies: bodies, entries: entries)
            }
            #expect(error?.code == .invalidValue)
        }
    }

    @Test func arrayContainsEntriesAreDistinctInFirstSeenOrder() {
        for count in [2, 5, 16, 17, 40] {
            let elements: [DocumentValue] = (0..<count).map { .int(Int64(($0 * 7) % 5)) } + [.double(1.0)]
            let data: DocumentData = ["tags": .array(elements)]
            let entries = IndexPolicy.entries(
                for: data, path: "users/u1", collectionPath: "users", collectionID: "users", declared: [])
            #expect(entries == Self.referenceEntries(data, collectionPath: "users"))
            let contains = entries.filter { $0.index == "users|tags|contains" }.map(\.key)
            #expect(contains.count == Set(contains).count)
        }
    }

    @Test func automaticIndexNamesAreToldFromDeclaredOnes() throws {
        let collection = "users/u1/orders"
        for dotted in ["city", "composite", "composite.x", "a.b", "`composite|x`", "`a b`", "contains"] {
            let field = try FieldPath(dotted)
            #expect(
                IndexPolicy.isAutomaticIndex(
                    IndexPolicy.singleFieldIndex(collection, field), collectionPath: collection))
            #expect(
                IndexPolicy.isAutomaticIndex(IndexPolicy.containsIndex(collection, field), collectionPath: collection))
            #expect(
                !IndexPolicy.isAutomaticIndex(IndexPolicy.singleFieldIndex("orders", field), collectionPath: collection)
            )
            #expect(
                !IndexPolicy.isAutomaticIndex(IndexPolicy.singleFieldIndex(collection, field), collectionPath: "orders")
            )
            #expect(
                !IndexPolicy.isAutomaticIndex(
                    IndexPolicy.singleFieldIndex(collection + "x", field), collectionPath: collection))
        }
        for scope in [IndexDefinition.Scope.collection, .collectionGroup] {
            for fields in [
                ["composite", "city"], ["city", "composite"], ["tags:contains", "city"], ["contains", "a"],
            ] {
                let definition = IndexDefinition(
                    collectionID: "orders", scope: scope,
                    fields: try fields.map { try IndexDefinition.Field(parsing: $0) })
                let name = definition.indexName(collectionPath: collection)
                #expect(!IndexPolicy.isAutomaticIndex(name, collectionPath: collection), "\(name)")
                #expect(!IndexPolicy.isAutomaticIndex(name, collectionPath: "orders"), "\(name)")
            }
        }
        #expect(!IndexPolicy.isAutomaticIndex(collection, collectionPath: collection))
        #expect(!IndexPolicy.isAutomaticIndex(collection + "|", collectionPath: collection))
        // Every entry the store computes for a document's fields is automatic; every declared one is not.
        var rng = ModelTestRandom(seed: 77)
        let declared = IndexDefinition(
            collectionID: "orders", fields: [.init(try FieldPath("composite")), .init(try FieldPath("a"))])
        for _ in 0..<500 {
            var data = ModelValueGenerator.data(&rng)
            data["composite"] = .array([.int(1), .string("x")])
            data["a"] = .int(2)
            let automatic = IndexPolicy.entries(
                for: data, path: collection + "/o1", collectionPath: collection, collectionID: "orders", declared: [])
            #expect(automatic.allSatisfy { IndexPolicy.isAutomaticIndex($0.index, collectionPath: collection) })
            var entries: [IndexEntry] = []
            IndexPolicy.addDeclaredEntries(
                declared, data: data, path: collection + "/o1", collectionPath: collection, into: &entries)
            #expect(!entries.isEmpty)
            #expect(entries.allSatisfy { !IndexPolicy.isAutomaticIndex($0.index, collectionPath: collection) })
        }
    }

    @Test func encodingGrowsItsBufferAcrossSizes() throws {
        // The encoder writes into a scratch buffer that starts at 1 KiB and doubles: documents on both sides of each
        // growth must encode to exactly their size and decode back.
        for size in [0, 1, 1000, 1017, 1023, 1024, 1025, 2100, 70_000] {
            var data: DocumentData = ["text": .string(String(repeating: "x", count: size)), "n": .int(7)]
            data["nested"] = .map(["blob": .bytes([UInt8](repeating: 0, count: size / 2)), "d": .double(1.5)])
            let bytes = ValueCodec.encode(data)
            #expect(bytes.count == ValueCodec.encodedSize(data))
            #expect(try ValueCodec.decode(bytes) == data)
        }
    }

    static func validationMessage(_ data: DocumentData, limits: DocumentLimits = .default) -> String? {
        do {
            try limits.validate(data, encodedSize: ValueCodec.encodedSize(data))
            return nil
        } catch let error as DocumentsError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func validationErrorsNameTheFailingField() {
        // The walk keeps no path while it succeeds; a failure rebuilds it on the way up.
        let geo: DocumentData = [
            "a": .map(["b": .array([.int(1), .geoPoint(GeoPoint(latitude: 100, longitude: 0))])])
        ]
        #expect(Self.validationMessage(geo) == "field 'a.b[1]': the geo point (100.0, 0.0) is out of range")
        #expect(Self.validationMessage(["a": .map(["": .int(1)])]) == "field 'a' has a field with an empty name")
        #expect(Self.validationMessage(["": .int(1)]) == "the document has a field with an empty name")
        #expect(Self.validationMessage(["a": .map(["__x__": .int(1)])]) == "field 'a.__x__' uses a reserved name")
        let deep: DocumentData = ["a": .map(["b": .map(["c": .int(1)])])]
        #expect(
            Self.validationMessage(deep, limits: DocumentLimits(maximumDepth: 2))
                == "field 'a.b.c' is nested more than 2 levels deep")
        #expect(
            Self.validationMessage(["t": .array([.timestamp(Timestamp(microseconds: .max))])])
                == "field 't[0]': the timestamp is outside years 0001–9999")
        let reference = Self.validationMessage(["a b": .map(["x": .reference("users")])]) ?? ""
        #expect(reference.hasPrefix("field '`a b`.x': the reference is invalid: "), "\(reference)")
        #expect(Self.validationMessage(ModelValueGenerator.order(2)) == nil)
    }

    @Test func collectionAccessorsMatchCollectionPath() throws {
        for text in ["users/u1", "users/u1/orders/o7", "a/b/c/d/e/f"] {
            let path = try DocumentPath(text)
            #expect(path.collectionString == path.collection.string)
            #expect(path.collectionID == path.collection.collectionID)
        }
    }
}
