@_spi(Engine) import Documents
import Foundation
import Testing

@Suite("Codable documents")
struct DocumentCodableModelTests {
    struct Address: Codable, Equatable {
        var city: String
        var zip: String?
    }

    enum Status: String, Codable { case active, banned }

    struct User: Codable, Equatable {
        @DocumentID var id: String?
        var name: String
        var points: Int
        var ratio: Double
        var joined: Date
        var avatar: Data
        var home: GeoPoint
        var address: Address
        var previous: [Address]
        var tags: [String]
        var nickname: String?
        var status: Status
        var friend: DocumentPath?
        var scores: [String: Int]
        var matrix: [[Int]]
    }

    static func sample() throws -> User {
        User(
            id: nil, name: "Ann", points: 10, ratio: 0.5, joined: Date(timeIntervalSince1970: 1_714_566_600.25),
            avatar: Data([0, 1, 2]), home: GeoPoint(latitude: 48.85, longitude: 2.35),
            address: Address(city: "Paris", zip: nil), previous: [Address(city: "Lyon", zip: "69001")],
            tags: ["a", "b"], nickname: nil, status: .active, friend: try DocumentPath("users/u2"),
            scores: ["math": 3], matrix: [[1, 2], []])
    }

    @Test func encodesToDocumentValues() throws {
        var user = try Self.sample()
        user.id = "ignored"
        let data = try DocumentEncoder().encode(user)
        #expect(data["id"] == nil)  // never stored
        #expect(data["name"] == .string("Ann"))
        #expect(data["points"] == .int(10))
        #expect(data["ratio"] == .double(0.5))
        #expect(data["joined"] == .timestamp(Timestamp(microseconds: 1_714_566_600_250_000)))
        #expect(data["avatar"] == .bytes([0, 1, 2]))
        #expect(data["home"] == .geoPoint(GeoPoint(latitude: 48.85, longitude: 2.35)))
        #expect(data["address"] == .map(["city": .string("Paris")]))
        #expect(data["previous"] == .array([.map(["city": .string("Lyon"), "zip": .string("69001")])]))
        #expect(data["nickname"] == nil)
        #expect(data["status"] == .string("active"))
        #expect(data["friend"] == .reference("users/u2"))
        #expect(data["scores"] == .map(["math": .int(3)]))
        #expect(data["matrix"] == .array([.array([.int(1), .int(2)]), .array([])]))
    }

    @Test func roundTripsWithIDFromPath() throws {
        let user = try Self.sample()
        let data = try DocumentEncoder().encode(user)
        let path = try DocumentPath("users/u1")
        let decoded = try DocumentDecoder().decode(User.self, from: data, path: path)
        var expected = user
        expected.id = "u1"
        #expect(decoded == expected)
        #expect(try DocumentDecoder().decode(User.self, from: data, path: nil).id == nil)
        // The id comes from the path even through the binary codec.
        let viaBody = try DocumentDecoder().decode(
            User.self, from: ValueCodec.decode(ValueCodec.encode(data)), path: path)
        #expect(viaBody == expected)
    }

    @Test func numericConversions() throws {
        struct Numbers: Codable, Equatable {
            var d: Double
            var i: Int
            var small: UInt8
            var f: Float
        }
        let decoded = try DocumentDecoder().decode(
            Numbers.self, from: ["d": .int(3), "i": .double(4.0), "small": .int(255), "f": .double(1.5)], path: nil)
        #expect(decoded == Numbers(d: 3, i: 4, small: 255, f: 1.5))
        #expect(throws: DocumentsError.self) {
            try DocumentDecoder().decode(
                Numbers.self, from: ["d": .int(3), "i": .double(4.5), "small": .int(1), "f": .int(1)], path: nil)
        }
        #expect(throws: DocumentsError.self) {
            try DocumentDecoder().decode(
                Numbers.self, from: ["d": .int(3), "i": .int(4), "small": .int(256), "f": .int(1)], path: nil)
        }
        #expect(throws: DocumentsError.self) { try DocumentEncoder().encode(["big": UInt64.max]) }
    }

    @Test func decodingErrorsNameTheField() throws {
        var data = try DocumentEncoder().encode(try Self.sample())
        data["address"] = .map(["city": .int(3)])
        do {
            _ = try DocumentDecoder().decode(User.self, from: data, path: nil)
            Issue.record("expected an error")
        } catch let error as DocumentsError {
            #expect(error.code == .invalidValue)
            #expect(error.message.contains("address.city"))
            #expect(error.hint != nil)
        }
        data["address"] = .map(["city": .string("Paris")])
        data["previous"] = .array([.map(["city": .bool(true)])])
        do {
            _ = try DocumentDecoder().decode(User.self, from: data, path: nil)
            Issue.record("expected an error")
        } catch let error as DocumentsError {
            #expect(error.message.contains("previous[0].city"))
        }
        data.removeValue(forKey: "name")
        do {
            _ = try DocumentDecoder().decode(User.self, from: data, path: nil)
            Issue.record("expected an error")
        } catch let error as DocumentsError {
            #expect(error.message.contains("'name' is missing"))
        }
    }

    @Test func topLevelMustBeAMap() throws {
        #expect(throws: DocumentsError.self) { try DocumentEncoder().encode([1, 2]) }
        #expect(throws: DocumentsError.self) { try DocumentEncoder().encode("x") }
        #expect(try DocumentEncoder().encode(["a": 1]) == ["a": .int(1)])
        #expect(
            try DocumentEncoder().encodeValue(Date(timeIntervalSince1970: 1))
                == .timestamp(Timestamp(microseconds: 1_000_000)))
    }

    @Test func classInheritanceUsesSuperEncoder() throws {
        class Base: Codable {
            var a = 1
        }
        final class Derived: Base {
            var b = 2
            enum CodingKeys: String, CodingKey { case b }
            override init() { super.init() }
            required init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                b = try c.decode(Int.self, forKey: .b)
                try super.init(from: c.superDecoder())
            }
            override func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(b, forKey: .b)
                try super.encode(to: c.superEncoder())
            }
        }
        let data = try DocumentEncoder().encode(Derived())
        #expect(data == ["b": .int(2), "super": .map(["a": .int(1)])])
        let back = try DocumentDecoder().decode(Derived.self, from: data, path: nil)
        #expect(back.a == 1 && back.b == 2)
    }

    @Test func documentIDWithJSONCoders() throws {
        struct Item: Codable {
            @DocumentID var id: String?
            var n: Int
        }
        let item = try JSONDecoder().decode(Item.self, from: Data(#"{"n":1}"#.utf8))
        #expect(item.id == nil && item.n == 1)
    }
}

@Suite("Document limits")
struct DocumentLimitsModelTests {
    func nested(_ depth: Int) -> DocumentData {
        var value: DocumentValue = .int(1)
        for _ in 1..<depth { value = .map(["x": value]) }
        return ["x": value]
    }

    @Test func depth() throws {
        let limits = DocumentLimits.default
        try limits.validate(nested(20), encodedSize: 10)
        #expect {
            try limits.validate(nested(21), encodedSize: 10)
        } throws: { ($0 as? DocumentsError)?.code == .limitExceeded && ($0 as? DocumentsError)?.hint != nil }
        try DocumentLimits(maximumDepth: 30).validate(nested(30), encodedSize: 10)
        let deepArray: DocumentData = ["a": .array([.array([.array([.int(1)])])])]
        #expect(throws: DocumentsError.self) { try DocumentLimits(maximumDepth: 3).validate(deepArray, encodedSize: 1) }
        try DocumentLimits(maximumDepth: 4).validate(deepArray, encodedSize: 1)
    }

    @Test func size() throws {
        let limits = DocumentLimits()
        try limits.validate([:], encodedSize: 1 << 20)
        #expect {
            try limits.validate([:], encodedSize: (1 << 20) + 1)
        } throws: { ($0 as? DocumentsError)?.code == .limitExceeded && ($0 as? DocumentsError)?.hint != nil }
        var small = DocumentLimits()
        small.maximumDocumentSize = 100
        #expect(throws: DocumentsError.self) { try small.validate([:], encodedSize: 101) }
    }

    @Test func fieldNames() throws {
        let limits = DocumentLimits()
        func code(_ data: DocumentData) -> DocumentsError.Code? {
            do {
                try limits.validate(data, encodedSize: 1)
                return nil
            } catch { return (error as? DocumentsError)?.code }
        }
        #expect(code(["": .null]) == .invalidField)
        #expect(code(["a": .map(["__x__": .null])]) == .invalidField)
        #expect(code([String(repeating: "a", count: 1501): .null]) == .invalidField)
        #expect(code([String(repeating: "a", count: 1500): .null]) == nil)
        #expect(code(["__": .null, "_a_": .null, "$x": .null]) == nil)
        #expect(code(["g": .geoPoint(GeoPoint(latitude: 91, longitude: 0))]) == .invalidValue)
        #expect(code(["r": .array([.reference("users")])]) == .invalidValue)
        #expect(code(["r": .reference("users/u1")]) == nil)
        #expect(code(["t": .timestamp(Timestamp(microseconds: DocumentLimits.latestTimestamp))]) == nil)
        #expect(code(["t": .timestamp(Timestamp(microseconds: DocumentLimits.latestTimestamp + 1))]) == .invalidValue)
        #expect(code(["t": .timestamp(Timestamp(microseconds: DocumentLimits.earliestTimestamp - 1))]) == .invalidValue)
    }

    @Test func batchSize() throws {
        try DocumentLimits.default.validateBatchSize(500)
        #expect(throws: DocumentsError.self) { try DocumentLimits.default.validateBatchSize(501) }
    }
}
