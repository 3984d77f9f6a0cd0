import Foundation
import SuiteCore
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    @Test("integers stay integers and fractions stay doubles through a round trip")
    func numbersKeepTheirKind() throws {
        let value = try JSONValue(parsing: #"{"i": 1, "d": 1.5, "e": 2e3, "big": 9007199254740993, "neg": -4}"#)
        #expect(value["i"] == .int(1))
        #expect(value["d"] == .double(1.5))
        #expect(value["e"] == .double(2000))
        #expect(value["big"] == .int(9_007_199_254_740_993))
        #expect(value["neg"] == .int(-4))
        #expect(try JSONValue(parsing: value.jsonString) == value)
        #expect(JSONValue.double(1).jsonString == "1.0")
    }

    @Test("strings with escapes, unicode and surrogate pairs parse and print back")
    func strings() throws {
        let value = try JSONValue(parsing: #"["a\"b\\c\n", "caf\u00e9", "\ud83d\ude00", "日本"]"#)
        #expect(value == .array(["a\"b\\c\n", "café", "😀", "日本"]))
        #expect(try JSONValue(parsing: value.jsonString) == value)
    }

    @Test("compact output sorts keys so equal values print equally")
    func sortedKeys() throws {
        let value = try JSONValue(parsing: #"{"b": [true, null], "a": {"y": 1, "x": "s"}}"#)
        #expect(value.jsonString == #"{"a":{"x":"s","y":1},"b":[true,null]}"#)
    }

    @Test(
        "malformed JSON is a typed error naming the offset",
        arguments: ["{", "{bad}", "[1,]", "\"open", "tru", "1 2", "{\"a\" 1}", "", "[1e999]"])
    func malformed(_ text: String) {
        #expect {
            try JSONValue(parsing: text)
        } throws: { error in
            guard let error = error as? SuiteError else { return false }
            return error.code == .invalidArgument && error.message.contains("offset")
        }
    }

    @Test("nesting beyond the limit is refused instead of overflowing the stack")
    func deepNesting() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: SuiteError.self) { try JSONValue(parsing: text) }
    }
}

@Suite("WallClock and ObservedEvent")
struct ClockAndEventTests {
    @Test("a manual clock moves only when told")
    func manualClock() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 100))
        #expect(clock.now == Date(timeIntervalSince1970: 100))
        clock.advance(by: 5)
        #expect(clock.now == Date(timeIntervalSince1970: 105))
    }

    @Test("an observed event renders as one JSON line with name, payload and RFC 3339 time")
    func jsonLine() throws {
        let event = GenericEvent(name: "demo.hello", payload: ["n": 1])
        let observed = try ObservedEvent(event, time: Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(observed.jsonLine == #"{"name":"demo.hello","payload":{"n":1},"time":"2023-11-14T22:13:20.250Z"}"#)
        let parsed = try JSONValue(parsing: observed.jsonLine)
        #expect(parsed["payload"] == ["n": 1])
    }

    @Test("a Codable payload is encoded as JSON")
    func codablePayload() throws {
        let observed = try ObservedEvent(Pong(payload: 42), time: Date(timeIntervalSince1970: 0))
        #expect(observed.payloadJSON == "42")
        #expect(observed.name == "test.pong")
    }
}
