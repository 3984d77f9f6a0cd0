@_spi(Engine) import Documents
import SuiteTestSupport
import Testing

@Suite("Index keys")
struct IndexKeyModelTests {
    static func memcmp(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }

    static func isPrefix(_ a: [UInt8], of b: [UInt8]) -> Bool { a.count <= b.count && Array(b[..<a.count]) == a }

    @Test func randomPairsOrderLikeValues() {
        var rng = ModelTestRandom(seed: 2024)
        for _ in 0..<20_000 {
            let a = ModelValueGenerator.value(&rng)
            let b = Bool.random(using: &rng) ? ModelValueGenerator.value(&rng) : a
            let expected = DocumentValue.compare(a, b).signum()
            let ascending = Self.memcmp(IndexKey.encode(a), IndexKey.encode(b))
            let descending = Self.memcmp(IndexKey.encode(a, descending: true), IndexKey.encode(b, descending: true))
            #expect(ascending == expected, "\(a) vs \(b)")
            #expect(descending == -expected, "\(a) vs \(b) descending")
            if expected != 0 {
                #expect(!Self.isPrefix(IndexKey.encode(a), of: IndexKey.encode(b)), "prefix: \(a) / \(b)")
            }
        }
    }

    @Test func concatenatedKeysOrderLexicographically() {
        var rng = ModelTestRandom(seed: 77)
        for _ in 0..<10_000 {
            let a = (ModelValueGenerator.value(&rng), ModelValueGenerator.value(&rng))
            let b = (Bool.random(using: &rng) ? a.0 : ModelValueGenerator.value(&rng), ModelValueGenerator.value(&rng))
            let (d0, d1) = (Bool.random(using: &rng), Bool.random(using: &rng))
            var ka: [UInt8] = []
            var kb: [UInt8] = []
            IndexKey.append(a.0, descending: d0, to: &ka)
            IndexKey.append(a.1, descending: d1, to: &ka)
            IndexKey.append(b.0, descending: d0, to: &kb)
            IndexKey.append(b.1, descending: d1, to: &kb)
            var expected = DocumentValue.compare(a.0, b.0).signum() * (d0 ? -1 : 1)
            if expected == 0 { expected = DocumentValue.compare(a.1, b.1).signum() * (d1 ? -1 : 1) }
            #expect(Self.memcmp(ka, kb) == expected, "\(a) vs \(b)")
        }
    }

    @Test func numbersShareOneLine() {
        let p53 = Int64(1) << 53
        #expect(IndexKey.encode(.int(1)) == IndexKey.encode(.double(1.0)))
        #expect(IndexKey.encode(.double(-0.0)) == IndexKey.encode(.int(0)))
        #expect(Self.memcmp(IndexKey.encode(.int(p53 + 1)), IndexKey.encode(.double(Double(p53)))) == 1)
        #expect(Self.memcmp(IndexKey.encode(.int(p53 + 1)), IndexKey.encode(.int(p53 + 2))) == -1)
        #expect(Self.memcmp(IndexKey.encode(.int(Int64.max)), IndexKey.encode(.double(.infinity))) == -1)
        #expect(Self.memcmp(IndexKey.encode(.double(.nan)), IndexKey.encode(.double(-.infinity))) == -1)
        #expect(Self.memcmp(IndexKey.encode(.int(Int64.min)), IndexKey.encode(.double(-.infinity))) == 1)
        #expect(Self.memcmp(IndexKey.encode(.int(Int64.max - 1)), IndexKey.encode(.int(Int64.max))) == -1)
        // A sweep of consecutive large integers and the doubles around them.
        var values: [DocumentValue] = []
        for base in [p53, Int64(1) << 62, Int64.max - 3000, Int64.min] {
            for k in Int64(0)..<2000 {
                let (i, overflow) = base.addingReportingOverflow(k)
                if !overflow {
                    values.append(.int(i))
                    values.append(.double(Double(i)))
                }
            }
        }
        let sortedByValue = values.sorted()
        let sortedByKey = values.sorted { Self.memcmp(IndexKey.encode($0), IndexKey.encode($1)) < 0 }
        for (x, y) in zip(sortedByValue, sortedByKey) { #expect(DocumentValue.compare(x, y) == 0) }
    }

    @Test func documentPathsOrderBySegment() throws {
        let paths = ["c/a", "c/a/s/x", "c/a/s/y", "c/a!", "c/a\u{0}", "c/b", "d/a"]
        for i in paths.indices {
            for j in paths.indices {
                var ki: [UInt8] = []
                var kj: [UInt8] = []
                IndexKey.appendDocumentPath(paths[i], descending: false, to: &ki)
                IndexKey.appendDocumentPath(paths[j], descending: false, to: &kj)
                let expected = (try DocumentPath(paths[i])) < (try DocumentPath(paths[j])) ? -1 : (i == j ? 0 : 1)
                #expect(Self.memcmp(ki, kj) == expected, "\(paths[i]) vs \(paths[j])")
                var di: [UInt8] = []
                IndexKey.appendDocumentPath(paths[i], descending: true, to: &di)
                #expect(di == ki.map { ~$0 })
            }
        }
        var key: [UInt8] = []
        IndexKey.appendDocumentPath("users/u1", descending: false, to: &key)
        #expect(key == IndexKey.encode(.reference("users/u1")))
    }

    @Test func layout() {
        #expect(IndexKey.encode(.null) == [0x10])
        #expect(IndexKey.encode(.bool(true)) == [0x11, 0x01])
        #expect(IndexKey.encode(.string("a\u{0}")) == [0x14, 0x61, 0x00, 0xFF, 0x00, 0x01])
        #expect(IndexKey.encode(.array([.null])) == [0x18, 0x10, 0x00])
        #expect(IndexKey.encode(.null, descending: true) == [0xEF])
        #expect(IndexKey.typeByte(forTypeOrder: DocumentValue.string("").typeOrder) == 0x14)
    }
}
