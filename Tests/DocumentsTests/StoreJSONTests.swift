import Documents
import Foundation
import SuiteCore
import Testing

@Suite struct StoreJSONTests {
    typealias T = StoreTesting

    @Test func whereExpressions() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        #expect(T.ids(try await users.whereExpression("points >= 40").getDocuments()) == ["u04", "u09"])
        #expect(T.ids(try await users.whereExpression("tags array-contains \"tea\"").getDocuments()) == ["u01", "u02"])
        #expect(T.ids(try await users.whereExpression("city in [\"Nice\"]").getDocuments()) == ["u04", "u08"])
        #expect(T.ids(try await users.whereExpression("address.city == \"Paris\"").getDocuments()) == ["u07"])
        for bad in ["points", "points >=", "points ~ 3", "city == Paris", "`a b == 1", ">= 3", "points>=", "points<>3"]
        {
            #expect(throws: DocumentsError.self) { _ = try users.whereExpression(bad) }
        }
    }

    @Test("symbolic operators need no blanks around them: points>=40 is points >= 40")
    func whereExpressionsWithoutBlanks() async throws {
        let store = try await T.store(.inMemory)
        try await T.seedUsers(store)
        let users = try store.collection("users")
        let spaced = T.ids(try await users.whereExpression("points >= 40").getDocuments())
        #expect(spaced == ["u04", "u09"])
        for tight in ["points>=40", "points>= 40", "points >=40", " points>=40 "] {
            #expect(T.ids(try await users.whereExpression(tight).getDocuments()) == spaced, "\(tight)")
        }
        #expect(T.ids(try await users.whereExpression("address.city==\"Paris\"").getDocuments()) == ["u07"])
        #expect(T.ids(try await users.whereExpression("points<0").getDocuments()).isEmpty)
        #expect(T.ids(try await users.whereExpression("address.city=\"Paris\"").getDocuments()) == ["u07"])
        #expect(
            T.ids(try await users.whereExpression("points!=-1").getDocuments())
                == T.ids(try await users.whereExpression("points != -1").getDocuments()))
        // A word operator still needs its blanks: `cityin [...]` is a field named `cityin` with no operator.
        #expect(throws: DocumentsError.self) { _ = try users.whereExpression("cityin [\"Nice\"]") }
    }

    @Test func batchFromJSON() async throws {
        let store = try await T.store(.inMemory)
        try await store.document("users/u1").setData(["points": 20])
        let text = """
            [{"op": "update", "path": "users/u1", "transforms": {"points": {"increment": -10}}},
             {"op": "add", "path": "pointTransactions", "data": {"points": -10}, "transforms": {"at": "serverTimestamp"}},
             {"op": "set", "path": "stats/daily", "merge": true, "transforms": {"redeemed": {"increment": 1}, "by.user": {"arrayUnion": ["u1"]}}},
             {"op": "set", "path": "users/u9", "data": {"n": 1}, "precondition": {"exists": false}}]
            """
        let results = try await store.batch(json: try JSONValue(parsing: text)).commit()
        #expect(results.count == 4)
        #expect(results[0].get("points") == .int(10))
        #expect(results[1].path.collection.string == "pointTransactions")
        #expect(results[1].get("at") != nil)
        #expect(results[2].get("redeemed") == .int(1))
        #expect(results[2].get("by.user") == .array([.string("u1")]))
        // A stale version precondition fails the whole batch.
        let stale = """
            [{"op": "update", "path": "users/u1", "data": {"points": 0}, "precondition": {"version": \(results[0].version - 1)}},
             {"op": "delete", "path": "users/u9"}]
            """
        let error = await T.documentsError { try await store.batch(json: try JSONValue(parsing: stale)).commit() }
        #expect(error?.code == .preconditionFailed)
        #expect(try await store.document("users/u9").getDocument().exists)
        let badOp = await T.documentsError {
            _ = try store.batch(json: try JSONValue(parsing: "[{\"op\":\"zap\",\"path\":\"a/b\"}]"))
        }
        #expect(badOp?.code == .invalidValue)
        #expect(badOp?.message.hasPrefix("write #1") == true)
        let badTransform = await T.documentsError {
            _ = try store.batch(
                json: try JSONValue(
                    parsing: "[{\"op\":\"update\",\"path\":\"a/b\",\"transforms\":{\"x\":{\"increment\":\"1\"}}}]"))
        }
        #expect(badTransform?.code == .invalidValue)
    }

    @Test func resultJSON() async throws {
        let store = try await T.store(.inMemory)
        try await store.document("users/u1").setData(["points": 3])
        let users = try store.collection("users")
        let snapshot = try await users.getDocuments()
        #expect(snapshot.json.arrayValue?.first?["path"] == .string("users/u1"))
        let aggregate = try await users.aggregate([.count, .sum("points")]).get()
        #expect(aggregate.json == .object(["count": .int(1), "sum(points)": .int(3)]))
        let plan = try await users.whereField("points", isEqualTo: .int(3)).explain()
        let decoded = try JSONDecoder().decode(QueryPlan.self, from: try JSONEncoder().encode(plan))
        #expect(decoded == plan)
        #expect(plan.json["indexes"] == .array([.string("users|points")]))
    }
}
