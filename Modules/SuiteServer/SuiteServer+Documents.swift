import Documents
import SuiteCore

extension SuiteServer {
    /// `GET /v1/docs/{path}`: the document, or 404.
    func get(_ account: ServerAccounts.Account, _ path: String) async throws -> (Int, JSONValue) {
        try require(account, write: false, path)
        try await admit(account, .reads(1))
        let snapshot = try await store.document(path).getDocument()
        metrics.documents(read: 1)
        try await requireGet(account, path, data: snapshot.data, pathChecked: true)
        guard snapshot.exists else {
            throw ServerError(.notFound, "no document at \(path)", hint: "create it with PUT /v1/docs/\(path)")
        }
        return (200, snapshot.json)
    }

    /// `PUT` (set), `PATCH` (update) and `DELETE` of one document: the body's `data`, `merge`, `transforms` and
    /// `precondition` as in a commit's write. Answers the document as written.
    func write(_ account: ServerAccounts.Account, _ path: String, op: String, body: JSONValue?) async throws -> (
        Int, JSONValue
    ) {
        try require(account, write: true, path)
        var object: [String: JSONValue] = [:]
        if let body {
            guard let fields = body.objectValue else {
                throw ServerError(
                    .invalidRequest, "the body must be a JSON object", hint: "e.g. {\"data\": {\"points\": 10}}")
            }
            object = fields
        }
        let known =
            op == "delete" ? ["precondition"] : ["data", "transforms", "precondition"] + (op == "set" ? ["merge"] : [])
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServerError(
                .invalidRequest, "unknown key '\(unknown)' in the body",
                hint: Suggestion.didYouMean(unknown, among: known, what: "keys"))
        }
        if op != "delete", object["data"] == nil, object["transforms"] == nil {
            throw ServerError(
                .invalidRequest, "the body has no data", hint: "send {\"data\": {…}} (and optionally \"transforms\")")
        }
        object["op"] = .string(op)
        object["path"] = .string(path)
        try await admit(account, .writes(ops: [op]))
        let snapshots = try await store.batch(json: .array([.object(object)])).commit(
            review: rules.review(for: account))
        metrics.documents(written: 1)
        return (200, snapshots.first?.json ?? .null)
    }

    /// `POST /v1/query`: `{"collection" | "collectionGroup", "where": ["points >= 10", …], "orderBy": ["points desc"],
    /// "limit": N, "startAfter": "PATH", "explain": true}`.
    func query(_ account: ServerAccounts.Account, _ body: JSONValue) async throws -> (Int, JSONValue) {
        guard let object = body.objectValue else {
            throw ServerError(.invalidRequest, "the body must be a JSON object")
        }
        let known = ["collection", "collectionGroup", "where", "orderBy", "limit", "startAfter", "explain"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw ServerError(
                .invalidRequest, "unknown key '\(unknown)'",
                hint: Suggestion.didYouMean(unknown, among: known, what: "keys"))
        }
        var query: Query
        let target: String
        if let collection = object["collection"]?.stringValue {
            try require(account, write: false, collection)
            query = try store.collection(collection).query
            target = collection
        } else if let group = object["collectionGroup"]?.stringValue {
            guard account.isAdmin || { if case .firestore = rules { true } else { false } }() else {
                throw ServerError(.forbidden, "only admins may query a collection group across users")
            }
            query = try store.collectionGroup(group)
            target = group
        } else {
            throw ServerError(.invalidRequest, "name a collection", hint: "e.g. {\"collection\": \"users/ana/orders\"}")
        }
        for expression in try strings(object["where"], "where") { query = try query.whereExpression(expression) }
        for order in try strings(object["orderBy"], "orderBy") {
            let parts = order.split(separator: " ", omittingEmptySubsequences: true)
            guard (1...2).contains(parts.count), parts.count == 1 || ["asc", "desc"].contains(parts[1].lowercased())
            else {
                throw ServerError(.invalidRequest, "orderBy '\(order)' is not 'field' or 'field desc'")
            }
            query = query.order(
                by: try FieldPath(String(parts[0])), descending: parts.count == 2 && parts[1].lowercased() == "desc")
        }
        if let limit = object["limit"] {
            guard let count = limit.intValue, count > 0, count <= 10_000 else {
                throw ServerError(.invalidRequest, "limit must be an integer from 1 to 10000")
            }
            query = query.limit(Int(count))
        }
        if let after = object["startAfter"] {
            guard let path = after.stringValue else {
                throw ServerError(.invalidRequest, "startAfter must be a document path", hint: "e.g. \"users/ana\"")
            }
            try require(account, write: false, path)
            let cursor = try await store.document(path).getDocument()
            try await requireGet(account, path, data: cursor.data)
            guard cursor.exists else {
                throw ServerError(
                    .invalidRequest, "startAfter names \(path), which does not exist",
                    hint: "pass the path of the last document of the previous page")
            }
            query = query.start(afterDocument: cursor)
        }
        var explain = false
        if let flag = object["explain"] {
            guard let value = flag.boolValue else {
                throw ServerError(.invalidRequest, "explain must be true or false")
            }
            explain = value
        }
        if case .firestore = rules {
            let decision = await rules.decideList(
                account, collection: target, group: object["collectionGroup"] != nil,
                query: RulesRequest.Query(
                    limit: query.limitCount, orderBy: query.orderFields, fixed: query.fixedValues),
                store: store)
            guard decision.allowed else { throw Self.forbidden(account, "list", target, decision) }
        }
        let snapshot = try await query.getDocuments()
        try await admit(account, .reads(snapshot.documents.count))
        metrics.documents(read: snapshot.documents.count)
        var answer: [String: JSONValue] = ["documents": .array(snapshot.documents.map(\.json))]
        if explain { answer["explain"] = try await query.explain().json }
        return (200, .object(answer))
    }

    /// `POST /v1/commit`: `{"writes": [{op, path, data, merge, transforms, precondition}, …]}`, all or nothing; a
    /// failed precondition is 409 and nothing is written.
    func commit(_ account: ServerAccounts.Account, _ body: JSONValue) async throws -> (Int, JSONValue) {
        guard let object = body.objectValue, let writes = object["writes"]?.arrayValue, object.count == 1 else {
            throw ServerError(
                .invalidRequest, "the body must be {\"writes\": [...]}",
                hint: "e.g. {\"writes\": [{\"op\": \"set\", \"path\": \"users/ana\", \"data\": {\"points\": 1}}]}")
        }
        for (index, write) in writes.enumerated() {
            guard let path = write["path"]?.stringValue else {
                throw ServerError(.invalidRequest, "write #\(index + 1) has no path")
            }
            // `add` names a collection: check the rules on a document in it.
            try require(account, write: true, write["op"]?.stringValue == "add" ? path + "/new" : path)
        }
        try await admit(account, .writes(ops: writes.map { $0["op"]?.stringValue }))
        let snapshots = try await store.batch(json: .array(writes)).commit(review: rules.review(for: account))
        metrics.documents(written: snapshots.count)
        return (200, .object(["results": .array(snapshots.map(\.json))]))
    }

    private func strings(_ value: JSONValue?, _ key: String) throws -> [String] {
        guard let value else { return [] }
        if let text = value.stringValue { return [text] }
        guard let list = value.arrayValue, let texts = Optional(list.compactMap(\.stringValue)),
            texts.count == list.count
        else { throw ServerError(.invalidRequest, "\(key) must be a string or a list of strings") }
        return texts
    }
}
