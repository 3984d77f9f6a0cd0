import Documents
import Foundation
import SuiteCore
import SuiteHTTP
import SuiteHTTPURLSession
import SuiteServer
import SuiteTestSupport
import Testing

/// The allow/deny tables replayed through a live server's JSON API, as a user's requests: each case's documents are
/// stored, the request is sent with the case's user's token, and 2xx or 404 must mean allow, 403 deny. Cases a live
/// server cannot replay are counted apart, never as passing: a fixed `request.time`, token claims or no user (Suite's
/// tokens carry no claims and the JSON API needs one), another database.
@Suite("Firestore's rules language: the tables through a live server")
struct RulesLiveTableTests {
    struct Outcome {
        var replayed = 0
        var skipped = 0
        var wrong: [String] = []
    }

    static func replay(_ name: String) async throws -> Outcome {
        let (rules, cases) = try RulesTableTests.load(name)
        let directory = try TestSupport.makeTemporaryDirectory("rules-live")
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let server = SuiteServer(
            store: store, accounts: accounts, rules: .firestore(rules), configuration: .init(port: 0))
        let (port, task) = try await runOnLoopback(server)
        let http = URLSessionTransport()
        defer {
            task.cancel()
            Task { try? await http.shutdown() }
        }
        var tokens: [String: String] = [:]
        var outcome = Outcome()
        for testCase in cases.cases {
            let request = testCase.request
            guard !testCase.setsTime, let auth = request.auth, auth.claims.isEmpty, request.database == "(default)",
                ServerAccountsCheck.isUserID(auth.uid)
            else {
                outcome.skipped += 1
                continue
            }
            let path = request.segments.compactMap { $0 }.joined(separator: "/")
            // The case's world: its documents, and the stored document for get, update and delete.
            var world = testCase.documents
            if let stored = request.stored, request.method != .list { world[path] = stored }
            if request.method == .create { world[path] = nil }
            do {
                for (documentPath, data) in world { _ = try await store.document(documentPath).setData(data) }
            } catch {
                outcome.skipped += 1  // a document the store refuses (nesting past its limits)
                continue
            }
            if tokens[auth.uid] == nil { tokens[auth.uid] = try await accounts.add(auth.uid) }
            let (method, url, body) = Self.http(request, path: path, port: port)
            if [.create, .update].contains(request.method), request.written == nil {
                outcome.skipped += 1
            } else {
                let response = try await http.send(
                    HTTPTransportRequest(
                        method: method, url: url,
                        headers: [
                            HTTPHeader("Authorization", "Bearer \(tokens[auth.uid] ?? "")"),
                            HTTPHeader("Content-Type", "application/json"),
                        ], body: body.map { Array($0.jsonString.utf8) }))
                let allowed = (200..<300).contains(response.status) || response.status == 404
                let denied = response.status == 403
                outcome.replayed += 1
                if !(allowed && testCase.expectAllow) && !(denied && !testCase.expectAllow) {
                    let text = String(decoding: response.body.prefix(300), as: UTF8.self)
                    outcome.wrong.append("\(name): '\(testCase.name)' \(response.status): \(text)")
                }
            }
            // Clean up: every document the case stored or wrote.
            for documentPath in Set(world.keys).union(request.method == .list ? [] : [path]) {
                _ = try await store.batch(json: .array([["op": "delete", "path": .string(documentPath)]])).commit()
            }
        }
        return outcome
    }

    /// The JSON API request for a case.
    static func http(_ request: RulesRequest, path: String, port: Int) -> (String, String, JSONValue?) {
        let base = "http://127.0.0.1:\(port)"
        switch request.method {
        case .get: return ("GET", "\(base)/v1/docs/\(path)", nil)
        case .create, .update:
            return ("PUT", "\(base)/v1/docs/\(path)", ["data": DocumentJSON.json(from: request.written ?? [:])])
        case .delete: return ("DELETE", "\(base)/v1/docs/\(path)", nil)
        case .list:
            var body: [String: JSONValue] = [:]
            if request.collectionGroup {
                body["collectionGroup"] = .string(request.segments.compactMap { $0 }.last ?? path)
            } else {
                body["collection"] = .string(path)
            }
            var filters: [JSONValue] = []
            for (field, values) in (request.query?.fixed ?? [:]).sorted(by: { $0.key < $1.key }) {
                if values.count == 1 {
                    filters.append(.string("\(field) == \(DocumentJSON.json(from: values[0]).jsonString)"))
                } else {
                    filters.append(
                        .string("\(field) in \(JSONValue.array(values.map(DocumentJSON.json(from:))).jsonString)"))
                }
            }
            if !filters.isEmpty { body["where"] = .array(filters) }
            if let limit = request.query?.limit { body["limit"] = .int(Int64(limit)) }
            return ("POST", "\(base)/v1/query", .object(body))
        }
    }

    @Test("each replayable case is decided by the live server as the table says", arguments: RulesTableTests.tables)
    func replayed(_ name: String) async throws {
        let outcome = try await Self.replay(name)
        for wrong in outcome.wrong { Issue.record(Comment(rawValue: wrong)) }
        print("rules-live \(name): \(outcome.replayed) replayed, \(outcome.skipped) not replayable")
    }

    @Test("at least 80 cases are replayed through the live server")
    func enough() async throws {
        var replayed = 0
        for name in RulesTableTests.tables { replayed += try await Self.replay(name).replayed }
        #expect(replayed >= 80, "only \(replayed) replayed")
    }
}

/// A user id Suite accepts (letters, digits, '-', '_', '.').
enum ServerAccountsCheck {
    static func isUserID(_ uid: String) -> Bool {
        !uid.isEmpty && uid.count <= 128 && uid != "." && uid != ".."
            && uid.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "."
            }
    }
}
