package import Documents
import Foundation
package import SuiteCore

/// Allow/deny cases run against ``FirestoreRules`` offline, as the emulator's rules unit tests do: what
/// `suite rules test FILE --cases CASES.yaml` reads.
///
/// ```yaml
/// documents:                          # stored for every case (get() and exists() read them)
///   users/ana: {role: admin}
/// cases:
///   - name: ana reads her profile
///     get: users/ana                  # or list (a collection), create, update, delete
///     auth: {uid: ana, token: {email_verified: true}}   # omitted: no user
///     resource: {name: Ana}           # the stored document (get, update, delete); omitted: missing
///     data: {name: Ana, age: 30}      # the document once written (create, update)
///     expect: allow
///   - name: a list that could reach other users' posts
///     list: posts
///     group: false                    # true: a collection group query
///     query: {limit: 10, where: {owner: ana}, in: {status: [draft, live]}}
///     time: 2024-05-01T12:00:00Z      # request.time; now when omitted
///     expect: deny
/// ```
/// Values are JSON (YAML) with Suite's tags for other types: `{"$timestamp": "…"}`, `{"$ref": "users/ana"}`, ….
package struct RulesTestCases: Sendable {
    /// One case.
    package struct Case: Sendable {
        package var name: String
        package var request: RulesRequest
        package var expectAllow: Bool
        /// Documents for this case (the file's, with the case's own).
        package var documents: [String: DocumentData]
        /// Whether the case sets `request.time` (a live server's clock cannot replay it).
        package var setsTime = false
    }

    /// The result of one case.
    package struct Result: Sendable {
        package var name: String
        package var expected: Bool
        package var decision: RulesDecision
        /// Whether the rules decided as expected.
        package var passed: Bool { expected == decision.allowed }
    }

    package var cases: [Case]

    static let caseKeys = [
        "name", "get", "list", "create", "update", "delete", "auth", "resource", "data", "query", "group", "time",
        "documents", "expect", "database",
    ]

    /// Reads cases from JSON (a YAML file converted), with an error naming the case and key for anything wrong.
    package init(json: JSONValue) throws {
        guard let object = json.objectValue else {
            throw Self.error("the cases file must be a map with cases: [...]")
        }
        if let unknown = object.keys.sorted().first(where: { !["documents", "cases"].contains($0) }) {
            throw Self.error(
                "unknown key '\(unknown)'", hint: Suggestion.didYouMean(unknown, among: ["documents", "cases"]))
        }
        let shared = try Self.documents(object["documents"], at: "documents")
        guard let list = object["cases"]?.arrayValue, !list.isEmpty else {
            throw Self.error("no cases", hint: "add cases: [{name, get: PATH, auth: {uid}, expect: allow}]")
        }
        cases = try list.enumerated().map { index, item in
            try Self.testCase(item, index: index, shared: shared)
        }
    }

    private static func testCase(_ item: JSONValue, index: Int, shared: [String: DocumentData]) throws -> Case {
        let at = "cases[\(index)]"
        guard let object = item.objectValue else { throw error("\(at) must be a map") }
        if let unknown = object.keys.sorted().first(where: { !caseKeys.contains($0) }) {
            throw error("\(at): unknown key '\(unknown)'", hint: Suggestion.didYouMean(unknown, among: caseKeys))
        }
        let name = object["name"]?.stringValue ?? "case \(index + 1)"
        let methods = RulesMethod.allCases.filter { object[$0.rawValue] != nil }
        guard methods.count == 1, let method = methods.first else {
            throw error(
                "\(at) (\(name)) must name one operation: get, list, create, update or delete with its path")
        }
        guard let path = object[method.rawValue]?.stringValue, !path.isEmpty else {
            throw error(
                "\(at) (\(name)): \(method.rawValue) must be a path", hint: "e.g. \(method.rawValue): users/ana")
        }
        var auth: (uid: String, claims: [String: JSONValue])?
        if let value = object["auth"], value != .null {
            guard let fields = value.objectValue, let uid = fields["uid"]?.stringValue else {
                throw error("\(at) (\(name)): auth must be {uid, token}", hint: "omit auth for a caller with no user")
            }
            auth = (uid, fields["token"]?.objectValue ?? [:])
        }
        var request = RulesRequest(method: method, path: path, auth: auth)
        if let database = object["database"]?.stringValue { request.database = database }
        request.stored = try object["resource"].map { try data($0, at: "\(at).resource") }
        request.written = try object["data"].map { try data($0, at: "\(at).data") }
        if let group = object["group"] {
            guard let flag = group.boolValue else { throw error("\(at).group must be true or false") }
            request.collectionGroup = flag
        }
        if let time = object["time"] {
            guard let text = time.stringValue, let micros = RFC3339.parse(text) else {
                throw error("\(at).time must be an RFC 3339 time", hint: "e.g. 2024-05-01T12:00:00Z")
            }
            request.time = Timestamp(microseconds: micros)
        }
        if let query = object["query"] {
            request.query = try Self.query(query, at: "\(at).query")
        } else if method == .list {
            request.query = RulesRequest.Query()
        }
        guard let expect = object["expect"]?.stringValue, ["allow", "deny"].contains(expect) else {
            throw error("\(at) (\(name)): expect must be allow or deny")
        }
        var documents = shared
        for (key, value) in try Self.documents(object["documents"], at: "\(at).documents") { documents[key] = value }
        return Case(
            name: name, request: request, expectAllow: expect == "allow", documents: documents,
            setsTime: object["time"] != nil)
    }

    private static func query(_ value: JSONValue, at: String) throws -> RulesRequest.Query {
        guard let object = value.objectValue else { throw error("\(at) must be a map {limit, where, in, orderBy}") }
        let keys = ["limit", "offset", "where", "in", "orderBy"]
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw error("\(at): unknown key '\(unknown)'", hint: Suggestion.didYouMean(unknown, among: keys))
        }
        var query = RulesRequest.Query()
        query.limit = object["limit"]?.intValue.map { Int($0) }
        query.offset = object["offset"]?.intValue.map { Int($0) }
        query.orderBy = object["orderBy"]?.arrayValue?.compactMap(\.stringValue) ?? []
        for (field, raw) in object["where"]?.objectValue ?? [:] {
            query.fixed[field] = [try DocumentJSON.value(from: raw)]
        }
        for (field, raw) in object["in"]?.objectValue ?? [:] {
            guard let values = raw.arrayValue else { throw error("\(at).in.\(field) must be a list") }
            query.fixed[field] = try values.map { try DocumentJSON.value(from: $0) }
        }
        return query
    }

    private static func documents(_ value: JSONValue?, at: String) throws -> [String: DocumentData] {
        guard let value else { return [:] }
        guard let object = value.objectValue else { throw error("\(at) must map paths to documents") }
        var result: [String: DocumentData] = [:]
        for (path, fields) in object { result[path] = try data(fields, at: "\(at).\(path)") }
        return result
    }

    private static func data(_ value: JSONValue, at: String) throws -> DocumentData {
        do { return try DocumentJSON.data(from: value) } catch let error as DocumentsError {
            throw Self.error("\(at): \(error.message)", hint: error.hint)
        }
    }

    private static func error(_ message: String, hint: String? = nil) -> SuiteError {
        SuiteError(.invalidArgument, message, hint: hint ?? "see `suite rules test --help` for the cases' format")
    }

    /// Runs every case against `rules`.
    package func run(_ rules: FirestoreRules) async -> [Result] {
        var results: [Result] = []
        for testCase in cases {
            let reader = OfflineReader(case: testCase)
            let decision = await rules.decide(testCase.request, reader: reader)
            results.append(Result(name: testCase.name, expected: testCase.expectAllow, decision: decision))
        }
        return results
    }

    /// `get()` over the case's documents; `getAfter()` sees the case's own write applied.
    struct OfflineReader: RulesDocumentReader {
        let documents: [String: DocumentData]
        let path: String
        let written: DocumentData?
        let writes: Bool

        init(case testCase: Case) {
            documents = testCase.documents
            path = testCase.request.segments.compactMap { $0 }.joined(separator: "/")
            written = testCase.request.written
            writes = [.create, .update, .delete].contains(testCase.request.method)
        }

        func document(_ path: String, after: Bool) async throws -> DocumentData? {
            if after, writes, path == self.path { return written }
            return documents[path]
        }
    }
}
