@_spi(Engine) import Documents
import SuiteTestSupport
import Testing

@Suite("Value codec")
struct ValueCodecTests {
    @Test func roundTripsEveryKind() throws {
        let data: DocumentData = [
            "null": .null, "t": .bool(true), "f": .bool(false), "int": .int(-123_456_789_012),
            "max": .int(Int64.max), "min": .int(Int64.min), "double": .double(3.25), "negZero": .double(-0.0),
            "inf": .double(-.infinity), "ts": .timestamp(Timestamp(microseconds: -1)), "s": .string("héllo \u{1F600}"),
            "empty": .string(""), "bytes": .bytes([0, 1, 255]), "ref": .reference("users/u1"),
            "geo": .geoPoint(GeoPoint(latitude: 48.85, longitude: 2.35)),
            "array": .array([.int(1), .array([]), .map(["k": .null])]),
            "map": .map(["nested": .map(["deep": .string("x")]), "": .int(0)]),
        ]
        let decoded = try ValueCodec.decode(ValueCodec.encode(data))
        #expect(decoded == data)
        #expect(ValueCodec.encodedSize(data) == ValueCodec.encode(data).count)
    }

    @Test func nanRoundTripsBitForBit() throws {
        let decoded = try ValueCodec.decode(ValueCodec.encode(["x": .double(.nan)]))
        guard case .double(let d)? = decoded["x"] else {
            Issue.record("not a double")
            return
        }
        #expect(d.isNaN)
    }

    @Test func randomRoundTrips() throws {
        var rng = ModelTestRandom(seed: 7)
        for _ in 0..<2000 {
            let data = ModelValueGenerator.data(&rng)
            let bytes = ValueCodec.encode(data)
            #expect(bytes.count == ValueCodec.encodedSize(data))
            let decoded = try ValueCodec.decode(bytes)
            // NaN != NaN under ==, so compare encodings.
            #expect(ValueCodec.encode(decoded) == bytes)
        }
    }

    @Test func equalDataEncodesEqually() {
        var a: DocumentData = [:]
        var b: DocumentData = [:]
        let keys = (0..<50).map { "key\($0)" }
        for k in keys { a[k] = .string(k) }
        for k in keys.reversed() { b[k] = .string(k) }
        b.reserveCapacity(500)
        #expect(ValueCodec.encode(a) == ValueCodec.encode(b))
        #expect(ValueCodec.encode(["m": .map(a)]) == ValueCodec.encode(["m": .map(b)]))
    }

    @Test func compact() {
        let data: DocumentData = ["n": .int(1), "b": .bool(true)]
        // format + count + ("b", true) + ("n", int 1) = 1 + 1 + 3 + 4
        #expect(ValueCodec.encode(data) == [1, 2, 1, 98, 2, 1, 110, 3, 2])
        #expect(ValueCodec.encode([:]) == [1, 0])
        let order = ValueCodec.encode(ModelValueGenerator.order())
        #expect(order.count > 600 && order.count < 800)
    }

    @Test func truncatedInputThrowsCorrupted() throws {
        var rng = ModelTestRandom(seed: 11)
        var bodies = [ValueCodec.encode(ModelValueGenerator.order())]
        for _ in 0..<50 { bodies.append(ValueCodec.encode(ModelValueGenerator.data(&rng))) }
        for body in bodies {
            for length in 0..<body.count {
                #expect(throws: DocumentsError.self) { try ValueCodec.decode(Array(body[..<length])) }
            }
            #expect(throws: DocumentsError.self) { try ValueCodec.decode(body + [0]) }
        }
    }

    @Test func randomCorruptionNeverTraps() {
        var rng = ModelTestRandom(seed: 99)
        let body = ValueCodec.encode(ModelValueGenerator.order())
        var failures = 0
        for _ in 0..<20_000 {
            var damaged = body
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                damaged[Int.random(in: 0..<damaged.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            do { _ = try ValueCodec.decode(damaged) } catch { failures += 1 }
        }
        #expect(failures > 0)
        for _ in 0..<20_000 {
            let garbage = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = try? ValueCodec.decode(garbage)
        }
    }

    @Test func hostileInputs() {
        func expectCorrupted(_ bytes: [UInt8], _ comment: Comment) {
            #expect(comment) {
                try ValueCodec.decode(bytes)
            } throws: { error in
                (error as? DocumentsError)?.code == .corrupted && (error as? DocumentsError)?.hint != nil
            }
        }
        expectCorrupted([], "empty")
        expectCorrupted([2, 0], "unknown format")
        expectCorrupted([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "huge map count")
        expectCorrupted([1] + Array(repeating: 0xFF, count: 11), "overlong varint")
        expectCorrupted([1, 1, 1, 97, 10, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "huge array count")
        expectCorrupted([1, 1, 1, 97, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "huge string length")
        expectCorrupted([1, 1, 1, 97, 42], "unknown tag")
        expectCorrupted([1, 1, 1, 97, 6, 2, 0xC3, 0x28], "invalid UTF-8")
        expectCorrupted([1, 2, 1, 97, 0, 1, 97, 0], "duplicate key")
        // An array nested 10,000 levels deep must be refused, not overflow the stack.
        var deep: [UInt8] = [1, 1, 1, 97]
        for _ in 0..<10_000 { deep += [10, 1] }
        deep.append(0)
        expectCorrupted(deep, "nesting bomb")
    }

    @Test func decodesFromRawBuffer() throws {
        let data = ModelValueGenerator.order(5)
        let body = ValueCodec.encode(data)
        let decoded = try body.withUnsafeBytes { try ValueCodec.decode($0) }
        #expect(decoded == data)
    }
}
