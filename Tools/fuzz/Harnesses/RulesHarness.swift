import Documents
import SuiteCore
import SuiteServer

/// The security rules language: arbitrary text parsed and checked as `suite serve --rules` does at start-up; what
/// compiles is asked for a few decisions (a get, a list, a create and an update), so the evaluator runs too.
enum RulesHarness {
    static let requests: [RulesRequest] = {
        let data: DocumentData = ["owner": .string("bo"), "n": .int(1), "tags": .array([.string("a")])]
        var create = RulesRequest(
            method: .create, path: "rooms/r1/messages/m1", auth: (uid: "bo", claims: ["admin": true]))
        create.written = data
        var update = RulesRequest(method: .update, path: "users/ana", auth: (uid: "ana", claims: [:]))
        update.stored = data
        update.written = ["owner": .string("ana")]
        var get = RulesRequest(method: .get, path: "users/ana", auth: (uid: "ana", claims: [:]))
        get.stored = data
        var list = RulesRequest(method: .list, path: "users/ana/notes", auth: nil)
        list.query = RulesRequest.Query(limit: 10, orderBy: ["n"], fixed: ["owner": [.string("bo")]])
        return [get, list, create, update]
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let rules = try? FirestoreRules(source: FuzzInput.text(bytes)) else { return }
        let requests = requests
        Blocking.run {
            for request in requests { _ = await rules.decide(request) }
        }
    }
}
