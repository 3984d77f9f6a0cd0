public import Documents
public import SuiteCore

/// A JSON route another module adds to ``SuiteServer`` (the host adds storage, analytics, work and system routes for
/// the console): a method, a Hummingbird path pattern with `:name` parameters, and a handler that answers JSON.
///
/// ```swift
/// let route = ServerRoute(.get, "/v1/work/:uid/month/:month") { request in
///     try await request.requireRead("workInfo/\(request.parameters["uid"] ?? "")")
///     return try await report(request.parameters["uid"]!, request.parameters["month"]!)
/// }
/// let server = SuiteServer(store: store, accounts: accounts, routes: [route])
/// ```
public struct ServerRoute: Sendable {
    /// The HTTP methods a route may answer.
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    /// The method.
    public var method: Method
    /// The path pattern, e.g. `/v1/storage/groups/:group`.
    public var path: String
    /// Answers the request: a 200 with this JSON, or a thrown ``ServerError`` (any other error is a 500).
    public var handler: @Sendable (ServerRequest) async throws -> JSONValue

    /// Creates a route.
    public init(
        _ method: Method, _ path: String, handler: @escaping @Sendable (ServerRequest) async throws -> JSONValue
    ) {
        self.method = method
        self.path = path
        self.handler = handler
    }

    /// The `:name` parameters of the pattern.
    var parameterNames: [String] {
        path.split(separator: "/").filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) }
    }
}

/// What a ``ServerRoute`` handler gets: the caller, the path parameters, the query and the JSON body.
public struct ServerRequest: Sendable {
    /// The authenticated caller.
    public var account: ServerAccounts.Account
    /// The pattern's `:name` parameters, decoded.
    public var parameters: [String: String]
    /// The query string's parameters (the last value of each name).
    public var query: [String: String]
    /// The body as JSON, nil when empty.
    public var body: JSONValue?
    let rules: ServerRules
    let store: DocumentStore

    /// Throws 403 unless the caller is an admin.
    public func requireAdmin() throws {
        guard account.isAdmin else {
            throw ServerError(
                .forbidden, "\(account.uid) is not an admin",
                hint: "an admin can grant it: `suite users add UID --admin`")
        }
    }

    /// Throws 403 unless the rules let the caller read `path` (Firestore's rules judge the document stored there).
    public func requireRead(_ path: String) async throws {
        if rules.refusesByPath(account, write: false, path: path) {
            throw ServerError(
                .forbidden, "\(account.uid) may not read \(path)",
                hint: "the rules allow users their own users/{uid}/** and workInfo/{uid}/**")
        }
        guard case .firestore = rules else { return }
        let stored = try await store.document(path).getDocument().data
        let decision = await rules.decideGet(account, path: path, stored: stored, store: store)
        guard decision.allowed else { throw SuiteServer.forbidden(account, "read", path, decision) }
    }

    /// The integer query parameter `name` within `range`, `fallback` when absent; 400 otherwise.
    public func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = query[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ServerError(
                .invalidRequest,
                "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not "
                    + "'\(text)'")
        }
        return value
    }
}
