import SuiteCore
import SuiteServer
import Testing

/// Timestamp methods on the earliest timestamps a rule can make (`timestamp.value` near Int64.min nanoseconds):
/// the floored divisions behind `toMillis()`, `year()` and `date()` used to overflow and trap the server while it
/// judged a request (found with `make fuzz`, harness `rules`; Tools/fuzz/FINDINGS.md). They now answer, or fail the
/// rule's condition, as any other error in a rule does.
@Suite("Rules: timestamps at the edge of the range")
struct RulesTimestampRangeTests {
    static func decision(_ condition: String) async throws -> Bool {
        let rules = try FirestoreRules(
            source: """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /users/{userId} {
                      allow get: if \(condition);
                    }
                  }
                }
                """, fileName: "edge.rules")
        let request = RulesRequest(method: .get, path: "users/ana", auth: (uid: "ana", claims: [:]))
        return await rules.decide(request).allowed
    }

    @Test func theEarliestTimestampsAnswerTheirMethods() async throws {
        // -9223372036854 ms is 1677-09-21, 775808 ns after the earliest nanosecond 64 bits hold.
        #expect(try await Self.decision("timestamp.value(-9223372036854).toMillis() == -9223372036854"))
        #expect(
            try await Self.decision(
                "timestamp.value(-9223372036854).year() == 1677 && timestamp.value(-9223372036854).month() == 9"))
        #expect(try await Self.decision("timestamp.value(-9223372036854).nanos() >= 0"))
        #expect(try await Self.decision("timestamp.value(-1).toMillis() == -1"))
        #expect(try await Self.decision("timestamp.value(-1).date() == timestamp.date(1969, 12, 31)"))
    }

    @Test func aDateBeforeTheRangeDeniesInsteadOfTrapping() async throws {
        #expect(try await Self.decision("timestamp.value(-9223372036854).date() != null") == false)
    }
}
