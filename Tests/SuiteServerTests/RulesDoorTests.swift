import Documents
import Foundation
import SuiteCore
import SuiteHTTP
import SuiteHTTPURLSession
import SuiteServer
import SuiteTestSupport
import Sync
import Synchronization
import Testing

/// Firestore's rules through each door of a live `SuiteServer` on loopback: the JSON API's reads, writes, queries and
/// commits, Sync's push and feed, and a console route.
@Suite("Firestore's rules at every door of the server")
struct RulesDoorTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function signedIn() { return request.auth != null; }
            match /accounts/{uid} {
              allow get: if signedIn() && request.auth.uid == uid;
              allow create: if request.auth.uid == uid
                && request.resource.data.keys().hasOnly(['balance', 'name'])
                && request.resource.data.balance is int && request.resource.data.balance >= 0;
              allow update: if request.auth.uid == uid && request.resource.data.balance >= 0
                && !request.resource.data.diff(resource.data).affectedKeys().hasAny(['name']);
              allow delete: if false;
            }
            match /profiles/{uid} {
              allow write: if request.auth.uid == uid
                && (!exists(/databases/$(database)/documents/profiles/$(uid))
                  || get(/databases/$(database)/documents/profiles/$(uid)).data.locked != true);
            }
            match /posts/{post} {
              allow get, list: if resource.data.owner == request.auth.uid;
              allow create: if request.resource.data.owner == request.auth.uid
                && getAfter(/databases/$(database)/documents/accounts/$(request.auth.uid)).data.balance >= 1;
            }
          }
        }
        """

    /// A server with the rules above, users ana, bob and carol, and a route that reads through `requireRead`.
    final class Running: Sendable {
        let store: DocumentStore
        let port: Int
        let tokens: [String: String]
        let task: Task<Void, any Error>
        let http = URLSessionTransport()

        init(store: DocumentStore, port: Int, tokens: [String: String], task: Task<Void, any Error>) {
            self.store = store
            self.port = port
            self.tokens = tokens
            self.task = task
        }

        func call(_ method: String, _ path: String, as user: String, _ body: JSONValue? = nil) async throws
            -> (status: Int, json: JSONValue)
        {
            let response = try await http.send(
                HTTPTransportRequest(
                    method: method, url: "http://127.0.0.1:\(port)\(path)",
                    headers: [
                        HTTPHeader("Authorization", "Bearer \(tokens[user] ?? "")"),
                        HTTPHeader("Content-Type", "application/json"),
                    ],
                    body: body.map { Array($0.jsonString.utf8) }))
            let text = String(decoding: response.body, as: UTF8.self)
            return (response.status, (try? JSONValue(parsing: text)) ?? .string(text))
        }

        func stop() async {
            task.cancel()
            _ = try? await task.value
            try? await http.shutdown()
        }
    }

    static func start() async throws -> Running {
        let directory = try TestSupport.makeTemporaryDirectory("rules-doors")
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        var tokens: [String: String] = [:]
        for user in ["ana", "bob", "carol"] { tokens[user] = try await accounts.add(user) }
        let readRoute = ServerRoute(.get, "/v1/test/accounts/:uid") { request in
            try await request.requireRead("accounts/\(request.parameters["uid"] ?? "")")
            return .object(["read": true])
        }
        let server = SuiteServer(
            store: store, accounts: accounts, rules: .firestore(try FirestoreRules(source: rules)),
            configuration: .init(port: 0), routes: [readRoute])
        let (port, task) = try await runOnLoopback(server)
        return Running(store: store, port: port, tokens: tokens, task: task)
    }

    @Test("writes: the data, the stored document and the caller decide; a refusal names the rule and writes nothing")
    func writes() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let created = try await server.call(
            "PUT", "/v1/docs/accounts/ana", as: "ana", ["data": ["balance": 10, "name": "Ana"]])
        #expect(created.status == 200)
        // A negative balance, an extra field, another user's document: 403, naming the rule.
        let negative = try await server.call("PUT", "/v1/docs/accounts/bob", as: "bob", ["data": ["balance": -5]])
        #expect(negative.status == 403)
        #expect(negative.json["error"]?["message"]?.stringValue?.contains("allow create at firestore.rules:") == true)
        let extra = try await server.call(
            "PUT", "/v1/docs/accounts/bob", as: "bob", ["data": ["balance": 5, "role": "admin"]])
        #expect(extra.status == 403)
        let foreign = try await server.call("PUT", "/v1/docs/accounts/ana", as: "bob", ["data": ["balance": 1]])
        #expect(foreign.status == 403)
        // An update judged against the stored document: the name is immutable, the balance may change.
        let rename = try await server.call("PATCH", "/v1/docs/accounts/ana", as: "ana", ["data": ["name": "Anna"]])
        #expect(rename.status == 403)
        let spend = try await server.call("PATCH", "/v1/docs/accounts/ana", as: "ana", ["data": ["balance": 4]])
        #expect(spend.status == 200)
        let delete = try await server.call("DELETE", "/v1/docs/accounts/ana", as: "ana")
        #expect(delete.status == 403)
        let stored = try await server.store.document("accounts/ana").getDocument()
        #expect(stored.data == ["balance": .int(4), "name": .string("Ana")])
        #expect(try await server.store.document("accounts/bob").getDocument().exists == false)
    }

    @Test("reads: get judges the stored document, a missing one is 404 when allowed, 403 when not")
    func reads() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        _ = try await server.call("PUT", "/v1/docs/accounts/ana", as: "ana", ["data": ["balance": 1, "name": "A"]])
        #expect(try await server.call("GET", "/v1/docs/accounts/ana", as: "ana").status == 200)
        #expect(try await server.call("GET", "/v1/docs/accounts/ana", as: "bob").status == 403)
        #expect(try await server.call("GET", "/v1/docs/accounts/bob", as: "bob").status == 404)
        // Through a console route's requireRead.
        #expect(try await server.call("GET", "/v1/test/accounts/ana", as: "ana").status == 200)
        #expect(try await server.call("GET", "/v1/test/accounts/ana", as: "bob").status == 403)
    }

    @Test("commits: each write is judged, getAfter sees the commit, and a refused commit writes nothing")
    func commits() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        // bob's account is created in the same commit as his post: getAfter sees it.
        let both = try await server.call(
            "POST", "/v1/commit", as: "bob",
            [
                "writes": [
                    ["op": "set", "path": "accounts/bob", "data": ["balance": 1]],
                    ["op": "set", "path": "posts/p1", "data": ["owner": "bob"]],
                ]
            ])
        #expect(both.status == 200)
        // carol has no account: her post is refused, and her account write in the same commit is not applied.
        let refused = try await server.call(
            "POST", "/v1/commit", as: "carol",
            [
                "writes": [
                    ["op": "set", "path": "accounts/carol", "data": ["balance": 0]],
                    ["op": "set", "path": "posts/p2", "data": ["owner": "carol"]],
                ]
            ])
        #expect(refused.status == 403)
        #expect(try await server.store.document("accounts/carol").getDocument().exists == false)
        #expect(try await server.store.document("posts/p2").getDocument().exists == false)
    }

    @Test("queries: allowed only when the rules allow every document the query could return")
    func queries() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        _ = try await server.call(
            "POST", "/v1/commit", as: "bob",
            [
                "writes": [
                    ["op": "set", "path": "accounts/bob", "data": ["balance": 1]],
                    ["op": "set", "path": "posts/p1", "data": ["owner": "bob"]],
                ]
            ])
        let everything = try await server.call("POST", "/v1/query", as: "bob", ["collection": "posts"])
        #expect(everything.status == 403)
        let mine = try await server.call(
            "POST", "/v1/query", as: "bob", ["collection": "posts", "where": [#"owner == "bob""#]])
        #expect(mine.status == 200)
        #expect(mine.json["documents"]?.arrayValue?.count == 1)
        let others = try await server.call(
            "POST", "/v1/query", as: "ana", ["collection": "posts", "where": [#"owner == "bob""#]])
        #expect(others.status == 403)
    }

    @Test(
        "sync: a refused mutation is rejected naming the rule, the others apply; the feed shows only what may be read")
    func sync() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let push = try await server.call(
            "POST", "/v1/sync/push", as: "ana",
            [
                "client": "phone",
                "mutations": [
                    ["id": "m1", "writes": [["op": "set", "path": "accounts/ana", "data": ["balance": 3]]]],
                    ["id": "m2", "writes": [["op": "update", "path": "accounts/ana", "data": ["balance": -1]]]],
                    ["id": "m3", "writes": [["op": "update", "path": "accounts/ana", "data": ["balance": 2]]]],
                ],
            ])
        #expect(push.status == 200)
        let results = push.json["results"]?.arrayValue ?? []
        #expect(results.map { $0["status"]?.stringValue } == ["applied", "rejected", "applied"])
        #expect(results.count == 3 && results[1]["message"]?.stringValue?.contains("allow update") == true)
        #expect(try await server.store.document("accounts/ana").getDocument().data?["balance"] == .int(2))
        // bob's feed does not carry ana's account; ana's does.
        let bobs = try await server.call("GET", "/v1/sync/changes?since=0", as: "bob")
        #expect(bobs.json["changes"]?.arrayValue?.isEmpty == true)
        let anas = try await server.call("GET", "/v1/sync/changes?since=0", as: "ana")
        #expect(anas.json["changes"]?.arrayValue?.map { $0["path"]?.stringValue } == ["accounts/ana", "accounts/ana"])
        let snapshot = try await server.call("GET", "/v1/sync/snapshot", as: "bob")
        #expect(snapshot.json["documents"]?.arrayValue?.isEmpty == true)
    }

    @Test("a replica's mutation the rules refuse leaves the outbox with a sync.conflict naming the rule")
    func replica() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        let bus = EventBus()
        let reasons = Mutex<[String]>([])
        let subscription = bus.subscribe(to: SyncConflictEvent.self) { event in
            reasons.withLock { $0.append(event.payload.reason) }
        }
        defer { subscription.cancel() }
        let directory = try TestSupport.makeTemporaryDirectory("rules-replica")
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("replica.sqlite").path), bus: bus)
        let replica = try await SyncClient(
            store: store,
            transport: try HTTPSyncTransport(
                baseURL: "http://127.0.0.1:\(server.port)", token: server.tokens["ana"] ?? ""))
        try await replica.write([["op": "set", "path": "accounts/ana", "data": ["balance": 5, "name": "Ana"]]])
        try await replica.write([["op": "update", "path": "accounts/ana", "data": ["balance": -1]]])
        try await replica.sync()
        #expect(reasons.withLock { $0.count } == 1)
        #expect(reasons.withLock { $0.first?.contains("allow update at firestore.rules:") } == true)
        // The refused write is undone on the replica; the server has the first.
        #expect(try await store.document("accounts/ana").getDocument().data?["balance"] == .int(5))
        #expect(try await server.store.document("accounts/ana").getDocument().data?["balance"] == .int(5))
    }

    @Test("a blind write whose rule reads the same document with get() is judged on the document before it")
    func getOfTheWrittenDocument() async throws {
        let server = try await Self.start()
        defer { Task { await server.stop() } }
        #expect(
            try await server.call("PUT", "/v1/docs/profiles/ana", as: "ana", ["data": ["locked": false]]).status == 200)
        #expect(
            try await server.call("PUT", "/v1/docs/profiles/ana", as: "ana", ["data": ["locked": true]]).status == 200)
        let locked = try await server.call("PUT", "/v1/docs/profiles/ana", as: "ana", ["data": ["locked": false]])
        #expect(locked.status == 403)
        #expect(try await server.store.document("profiles/ana").getDocument().data?["locked"] == .bool(true))
    }
}
