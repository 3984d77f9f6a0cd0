import Documents
import Foundation
import SuiteCore
import Testing

/// What a new user tripped on (issue 10): strict batch files, index specs and numbers; Swift ergonomics of values.
@Suite struct StoreStrictInputTests {
    typealias T = StoreTesting

    // MARK: - Batch files

    @Test(
        "a batch with an unknown key, a misspelled or missing data, or an empty update fails naming the write",
        arguments: [
            (#"{"op":"set","path":"users/u2","date":{"points":1}}"#, "unknown key \"date\""),
            (#"{"op":"set","path":"users/u2","data":{"points":1},"mege":true}"#, "unknown key \"mege\""),
            (#"{"op":"set","path":"users/u2"}"#, "needs \"data\""),
            (#"{"op":"add","path":"users"}"#, "needs \"data\""),
            (#"{"op":"update","path":"users/u1"}"#, "at least one field"),
            (#"{"op":"update","path":"users/u1","data":{}}"#, "at least one field"),
            (#"{"op":"delete","path":"users/u1","data":{}}"#, "unknown key \"data\""),
            (#"{"op":"set","path":"users/u2","data":{},"merge":"yes"}"#, "\"merge\" must be"),
            (#"{"op":"update","path":"users/u1","data":{"a.b":1,"a":2}}"#, "'a' and 'a.b'"),
            (#"{"op":"delete","path":"users/u1","precondition":{"version":1,"exist":true}}"#, "bad precondition"),
        ])
    func strictBatch(_ write: String, _ expected: String) async throws {
        let store = try await T.store(.inMemory)
        let before = try await store.document("users/u1").setData(["points": 1])
        let text = #"[{"op":"set","path":"users/u3","data":{"ok":true}}, "# + write + "]"
        let error = await T.documentsError { _ = try await store.batch(json: try JSONValue(parsing: text)).commit() }
        #expect(error?.message.hasPrefix("write #2: ") == true, "\(String(describing: error))")
        #expect(error?.message.contains(expected) == true, "\(String(describing: error))")
        // Nothing applied: not the valid first write either.
        #expect(try await store.document("users/u3").getDocument().exists == false)
        #expect(try await store.document("users/u1").getDocument().version == before.version)
    }

    @Test("a set whose data is {} or given only as transforms is still accepted")
    func explicitEmptyData() async throws {
        let store = try await T.store(.inMemory)
        let text = #"""
            [{"op":"set","path":"users/u1","data":{}},
             {"op":"set","path":"stats/s","merge":true,"transforms":{"n":{"increment":1}}}]
            """#
        let results = try await store.batch(json: try JSONValue(parsing: text)).commit()
        #expect(results.map(\.data) == [[:], ["n": 1]])
    }

    // MARK: - Numbers and index specs

    @Test("an integer beyond 64 bits is an error, never a silent double")
    func integerOutOfRange() throws {
        #expect(throws: SuiteError.self) { try JSONValue(parsing: #"{"n": 100000000000000000000000}"#) }
        #expect(throws: SuiteError.self) { try JSONValue(parsing: "-9223372036854775809") }
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(.max))
        #expect(try JSONValue(parsing: "1e23") == .double(1e23))
    }

    @Test("an index field's order is asc, desc or contains in any case; anything else is an error")
    func indexFieldOrders() throws {
        #expect(try IndexDefinition.Field(parsing: "city:DESC").order == .descending)
        #expect(try IndexDefinition.Field(parsing: "city:Asc").order == .ascending)
        #expect(try IndexDefinition.Field(parsing: "tags:contains").order == .arrayContains)
        #expect(try IndexDefinition.Field(parsing: "`a:b`").fieldPath.segments == ["a:b"])
        let error = #expect(throws: DocumentsError.self) { try IndexDefinition.Field(parsing: "city:sideways") }
        #expect(error?.message.contains("sideways") == true)
    }

    // MARK: - Swift ergonomics

    struct Address: Encodable { var city: String }

    @Test("values from Swift literals, variables, dates, collections and Encodable types")
    func valuesFromSwift() throws {
        let name = "Ana"
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let literal: DocumentValue = ["name": "Ana", "points": 30, "ratio": 0.5, "vip": true, "tags": ["a", "b"]]
        #expect(
            literal
                == .map([
                    "name": .string("Ana"), "points": .int(30), "ratio": .double(0.5), "vip": .bool(true),
                    "tags": .array([.string("a"), .string("b")]),
                ]))
        #expect(DocumentValue(name) == .string("Ana"))
        #expect(DocumentValue(30) == .int(30))
        #expect(DocumentValue(2.5) == .double(2.5))
        #expect(DocumentValue(false) == .bool(false))
        #expect(DocumentValue(date) == .timestamp(Timestamp(date)))
        #expect(DocumentValue([1, 2]) == .array([.int(1), .int(2)]))
        #expect(DocumentValue(["a": [true]]) == .map(["a": .array([.bool(true)])]))
        #expect(try DocumentValue(encoding: Address(city: "Paris")) == .map(["city": .string("Paris")]))
        #expect(FieldValue.value(name) == FieldValue(.string("Ana")))
    }

    @Test("values read back as Swift types; a wrong type is an error, a missing field nil")
    func typedAccessors() async throws {
        let store = try await T.store(.inMemory)
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let snapshot = try await store.document("users/u1").setData([
            "name": "Ana", "points": 30, "ratio": 0.5, "at": .value(date), "tags": ["a"], "address": ["city": "Lyon"],
        ])
        #expect(try snapshot.get("points", as: Int.self) == 30)
        #expect(try snapshot.get("points", as: Double.self) == 30)
        #expect(try snapshot.get("name", as: String.self) == "Ana")
        #expect(try snapshot.get("at", as: Date.self) == date)
        #expect(try snapshot.get("tags", as: [String].self) == ["a"])
        #expect(try snapshot.get("address", as: [String: String].self) == ["city": "Lyon"])
        #expect(try snapshot.get("address.city", as: String.self) == "Lyon")
        #expect(try snapshot.get("missing", as: Int.self) == nil)
        let wrong = #expect(throws: DocumentsError.self) { try snapshot.get("name", as: Int.self) }
        #expect(wrong?.message.contains("not Int") == true)
    }

    @Test("values print readably")
    func descriptions() {
        #expect(DocumentValue.int(30).description == "30")
        #expect("\(DocumentValue.string("Ana"))" == #""Ana""#)
        #expect(DocumentValue.array([1, 2.5]).description == "[1,2.5]")
        #expect(DocumentValue.timestamp(Timestamp(microseconds: 0)).description.contains("1970-01-01"))
    }

    @Test("whereField takes plain Swift literals, as its doc comment shows")
    func whereFieldLiterals() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let rich = try await users.whereField("points", isGreaterThan: 25).getDocuments()
        #expect(T.ids(rich) == ["u05", "u04", "u09"])
        let paris = try await users.whereField("city", isEqualTo: "Paris").whereField("tags", arrayContains: "coffee")
            .getDocuments()
        #expect(T.ids(paris) == ["u01", "u09"])
    }
}
