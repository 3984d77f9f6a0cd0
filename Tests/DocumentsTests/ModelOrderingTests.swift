@_spi(Engine) import Documents
import Testing

@Suite("Value ordering")
struct ModelOrderingTests {
    @Test func typeOrderFollowsFirestore() {
        let ascending: [DocumentValue] = [
            .null, .bool(false), .bool(true), .double(.nan), .double(-.infinity), .int(Int64.min), .int(-1),
            .double(-0.5), .int(0), .double(0.5), .int(1), .double(1.5), .int(Int64.max), .double(.infinity),
            .timestamp(Timestamp(microseconds: -5)), .timestamp(Timestamp(microseconds: 7)),
            .string(""), .string("A"), .string("a"), .string("é"),
            .bytes([]), .bytes([0]), .bytes([0, 0]), .bytes([1]), .bytes([0xFF]),
            .reference("a/b"), .reference("a/b/c/d"), .reference("a/b!"), .reference("b/a"),
            .geoPoint(GeoPoint(latitude: -10, longitude: 50)), .geoPoint(GeoPoint(latitude: 0, longitude: -10)),
            .geoPoint(GeoPoint(latitude: 0, longitude: 10)),
            .array([]), .array([.null]), .array([.int(1)]), .array([.int(1), .null]), .array([.int(2)]),
            // Vectors (Firestore's `__vector__` maps) sit between arrays and maps, by dimension first.
            Self.vector([]), Self.vector([9]), Self.vector([1, 2]), Self.vector([1, 3]), Self.vector([0, 0, 0]),
            .map([:]), .map(["a": .int(1)]), .map(["a": .int(1), "b": .null]), .map(["a": .int(2)]),
            .map(["b": .null]),
        ]
        for i in ascending.indices {
            for j in ascending.indices {
                let c = DocumentValue.compare(ascending[i], ascending[j])
                let expected = i < j ? -1 : (i > j ? 1 : 0)
                #expect(c.signum() == expected, "\(ascending[i]) vs \(ascending[j])")
            }
        }
        #expect(ascending.map(\.typeOrder) == ascending.map(\.typeOrder).sorted())
        #expect(DocumentValue.null.typeOrder == 0)
        #expect(DocumentValue.map([:]).typeOrder == 10)
        #expect(Self.vector([1]).typeOrder == 9)
        // A map that only looks like a vector (another key, or a non-number) is a map.
        #expect(DocumentValue.map(["__type__": "__vector__", "value": .array([.string("x")])]).typeOrder == 10)
    }

    static func vector(_ elements: [Double]) -> DocumentValue {
        .map(["__type__": .string("__vector__"), "value": .array(elements.map(DocumentValue.double))])
    }

    @Test func vectorKeysOrderLikeVectors() {
        let values: [DocumentValue] = [
            .array([.int(5)]), .array([.map([:])]), Self.vector([]), Self.vector([3]), Self.vector([-1, 4]),
            Self.vector([2, 0]), Self.vector([0, 0, 1]), .map([:]), .map(["a": Self.vector([1])]),
            .map(["a": .array([])]),
        ]
        for a in values {
            for b in values {
                for descending in [false, true] {
                    let keys = IndexKey.encode(a, descending: descending).lexicographicallyPrecedes(
                        IndexKey.encode(b, descending: descending))
                    let ordered = descending ? DocumentValue.compare(b, a) < 0 : DocumentValue.compare(a, b) < 0
                    #expect(keys == ordered, "\(a) vs \(b), descending: \(descending)")
                }
            }
        }
    }

    @Test func numbersCompareNumerically() {
        #expect(DocumentValue.compare(.int(1), .double(1.0)) == 0)
        #expect(DocumentValue.compare(.double(-0.0), .int(0)) == 0)
        #expect(DocumentValue.compare(.double(-0.0), .double(0.0)) == 0)
        #expect(DocumentValue.compare(.double(.nan), .double(.nan)) == 0)
        #expect(DocumentValue.int(2) > .double(1.999))
        #expect(DocumentValue.int(1) < .double(1.0000001))
        #expect(DocumentValue.int(-2) < .double(-1.5))
        #expect(DocumentValue.int(-1) > .double(-1.5))
    }

    @Test func largeIntegersAreExact() {
        let p53 = Int64(1) << 53
        // Double(p53 + 1) rounds to p53: the comparison must not round.
        #expect(DocumentValue.int(p53 + 1) > .double(Double(p53)))
        #expect(DocumentValue.int(p53) == .int(p53))
        #expect(DocumentValue.compare(.int(p53), .double(Double(p53))) == 0)
        #expect(DocumentValue.int(Int64.max) < .double(9_223_372_036_854_775_808.0))
        #expect(DocumentValue.compare(.int(Int64.min), .double(-9_223_372_036_854_775_808.0)) == 0)
        #expect(DocumentValue.int(Int64.min) > .double(-9.3e18))
        #expect(DocumentValue.int(Int64.max - 1) < .int(Int64.max))
    }

    @Test func stringsByUTF8Bytes() {
        // U+FF61 (3 bytes, EF BD A1) vs U+1F600 (4 bytes, F0 ...): UTF-8 order puts the emoji last,
        // UTF-16 order would put it first.
        #expect(DocumentValue.string("\u{FF61}") < .string("\u{1F600}"))
        #expect(DocumentValue.string("Z") < .string("a"))
        #expect(DocumentValue.string("a") < .string("ab"))
    }

    @Test func mapsBySortedKeysThenValues() {
        #expect(DocumentValue.map(["b": .int(1)]) > .map(["a": .int(9), "c": .int(0)]))
        #expect(DocumentValue.map(["a": .int(1), "b": .int(1)]) < .map(["a": .int(1), "b": .int(2)]))
        #expect(DocumentValue.map(["a": .null]) < .map(["a": .null, "b": .null]))
    }

    @Test func sortingMixedValues() {
        let values: [DocumentValue] = [.string("x"), .int(3), .null, .double(2.5), .bool(true), .map([:]), .array([])]
        #expect(values.sorted() == [.null, .bool(true), .double(2.5), .int(3), .string("x"), .array([]), .map([:])])
    }
}
