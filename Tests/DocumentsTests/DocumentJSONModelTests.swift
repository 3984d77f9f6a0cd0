@_spi(Engine) import Documents
import SuiteCore
import SuiteTestSupport
import Testing

@Suite("Document JSON")
struct DocumentJSONModelTests {
    @Test func plainAndTaggedValues() throws {
        let data = try DocumentJSON.data(
            parsing: #"""
                {"n": 1, "d": 1.5, "whole": 2.0, "s": "x", "b": true, "z": null, "list": [1, "a"],
                 "when": {"$timestamp": "2024-05-01T12:30:00.25Z"}, "raw": {"$bytes": "AAH/"},
                 "owner": {"$ref": "users/u1"}, "at": {"$geo": [48, 2.35]}, "nested": {"a": {"b": 1}},
                 "odd": {"$map": {"$price": 3}}, "nan": {"$double": "NaN"}}
                """#)
        #expect(data["n"] == .int(1))
        #expect(data["d"] == .double(1.5))
        #expect(data["whole"] == .double(2.0))
        #expect(data["s"] == .string("x"))
        #expect(data["b"] == .bool(true))
        #expect(data["z"] == .null)
        #expect(data["list"] == .array([.int(1), .string("a")]))
        #expect(data["when"] == .timestamp(Timestamp(microseconds: 1_714_566_600_250_000)))
        #expect(data["raw"] == .bytes([0, 1, 255]))
        #expect(data["owner"] == .reference("users/u1"))
        #expect(data["at"] == .geoPoint(GeoPoint(latitude: 48, longitude: 2.35)))
        #expect(data["nested"] == .map(["a": .map(["b": .int(1)])]))
        #expect(data["odd"] == .map(["$price": .int(3)]))
        if case .double(let d)? = data["nan"] { #expect(d.isNaN) } else { Issue.record("not NaN") }
    }

    @Test func roundTripsThroughText() throws {
        var rng = ModelTestRandom(seed: 5)
        for _ in 0..<500 {
            // References must be valid document paths, and geo points real coordinates, to go through JSON.
            let data = ModelValueGenerator.data(&rng).mapValues(Self.jsonSafe)
            let text = DocumentJSON.json(from: data).jsonString
            let back = try DocumentJSON.data(parsing: text)
            #expect(ValueCodec.encode(back) == ValueCodec.encode(data), "\(text.debugDescription)")
        }
    }

    static func jsonSafe(_ value: DocumentValue) -> DocumentValue {
        switch value {
        case .reference(let path): (try? DocumentPath(path)) == nil ? .reference("a/b") : value
        case .geoPoint(let g) where g.latitude.isNaN: .geoPoint(GeoPoint(latitude: 0, longitude: g.longitude))
        case .array(let items): .array(items.map(jsonSafe))
        case .map(let map): .map(map.mapValues(jsonSafe))
        default: value
        }
    }

    @Test func jsonOutput() {
        let data: DocumentData = [
            "t": .timestamp(Timestamp(microseconds: 1_714_566_600_000_000)), "r": .reference("users/u1"),
            "g": .geoPoint(GeoPoint(latitude: 1.5, longitude: -2)), "i": .int(3), "m": .map(["$x": .int(1)]),
        ]
        #expect(
            DocumentJSON.json(from: data).jsonString
                == #"{"g":{"$geo":[1.5,-2.0]},"i":3,"m":{"$map":{"$x":1}},"r":{"$ref":"users/u1"},"#
                + #""t":{"$timestamp":"2024-05-01T12:30:00Z"}}"#)
        #expect(
            DocumentJSON.json(from: .timestamp(Timestamp(microseconds: 1)))
                == .object(["$timestamp": "1970-01-01T00:00:00.000001Z"]))
        #expect(
            DocumentJSON.json(from: .timestamp(Timestamp(microseconds: -1_000)))
                == .object(["$timestamp": "1969-12-31T23:59:59.999Z"]))
    }

    @Test func timestampParsing() throws {
        func parse(_ text: String) throws -> DocumentValue {
            try DocumentJSON.value(from: .object(["$timestamp": .string(text)]))
        }
        #expect(try parse("1970-01-01T00:00:00Z") == .timestamp(Timestamp(microseconds: 0)))
        #expect(try parse("1970-01-01T02:00:00+02:00") == .timestamp(Timestamp(microseconds: 0)))
        #expect(try parse("1969-12-31t19:00:00.123456789-05:00") == .timestamp(Timestamp(microseconds: 123_456)))
        #expect(try parse("2000-02-29T00:00:00Z") == .timestamp(Timestamp(microseconds: 951_782_400_000_000)))
        #expect(
            try parse("0001-01-01T00:00:00Z") == .timestamp(Timestamp(microseconds: DocumentLimits.earliestTimestamp)))
        #expect(
            try parse("9999-12-31T23:59:59.999999Z")
                == .timestamp(Timestamp(microseconds: DocumentLimits.latestTimestamp)))
        for bad in [
            "", "2024-05-01", "2024-05-01T12:30:00", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",
            "2024-05-01T24:00:00Z", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00Zjunk", "0000-01-01T00:00:00Z",
        ] {
            #expect(
                performing: { try parse(bad) },
                throws: { error in
                    (error as? DocumentsError)?.code == .invalidValue && (error as? DocumentsError)?.hint != nil
                })
        }
    }

    @Test func errorsNameTheFieldAndHint() {
        func failure(_ text: String) -> DocumentsError? {
            do {
                _ = try DocumentJSON.data(parsing: text)
                return nil
            } catch {
                return error as? DocumentsError
            }
        }
        let unknown = failure(#"{"a": {"b": [1, {"$timestmp": "x"}]}}"#)
        #expect(unknown?.code == .invalidValue)
        #expect(unknown?.message.contains("a.b[1]") == true)
        #expect(unknown?.message.contains("$timestmp") == true)
        #expect(unknown?.hint?.contains("$timestamp") == true)

        let base64 = failure(#"{"raw": {"$bytes": "not base64!"}}"#)
        #expect(base64?.message.contains("raw") == true)
        #expect(base64?.hint != nil)

        #expect(failure(#"{"r": {"$ref": "users"}}"#)?.hint?.contains("even number") == true)
        #expect(failure(#"{"g": {"$geo": [91, 0]}}"#)?.code == .invalidValue)
        #expect(failure(#"{"g": {"$geo": [1]}}"#)?.code == .invalidValue)
        #expect(failure(#"[1, 2]"#)?.message.contains("must be a JSON object") == true)
        let malformed = failure(#"{"a": }"#)
        #expect(malformed?.code == .invalidValue)
        #expect(malformed?.hint != nil)
    }

    @Test func topLevelKeysAreFieldsNotTags() throws {
        let data = try DocumentJSON.data(parsing: #"{"$ref": "not a path"}"#)
        #expect(data == ["$ref": .string("not a path")])
        #expect(DocumentJSON.json(from: data) == .object(["$ref": "not a path"]))
    }
}
