public import Documents
import Foundation
public import Hummingbird
public import Logging
import NIOCore
import SuiteCore
public import Sync

/// The HTTP server behind `suite serve`: the Documents API as JSON over HTTP (docs/api.md, `/openapi.json`), bearer
/// tokens from ``ServerAccounts``, ``ServerRules`` at every door, `/healthz` and `/metrics`.
///
/// ```swift
/// let server = SuiteServer(store: store, accounts: try ServerAccounts(path: "server.sqlite"), rules: .standard)
/// try await server.run { port in print("listening on \(port)") }   // until the task's graceful shutdown
/// ```
public struct SuiteServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// The address to bind (loopback by default).
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// The largest request body accepted; larger ones get 413.
        public var maximumBodyBytes: Int
        /// Per-user limits on documents read, written and deleted (none by default).
        public var quotas: QuotaLimits

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, maximumBodyBytes: Int = 1 << 20,
            quotas: QuotaLimits = QuotaLimits()
        ) {
            self.host = host
            self.port = port
            self.maximumBodyBytes = maximumBodyBytes
            self.quotas = quotas
        }
    }

    /// The store documents are served from.
    public let store: DocumentStore
    /// Who may call.
    public let accounts: ServerAccounts
    /// What each caller may read and write.
    public let rules: ServerRules
    /// Counters behind `/metrics`.
    public let metrics: ServerMetrics
    /// Address, port, limits.
    public let configuration: Configuration
    let logger: Logger
    /// The sync side of the store: pushes applied once per mutation id, the change feed.
    public let sync: SyncHost
    /// Routes other modules add (the console's storage, analytics, work and system pages).
    public let routes: [ServerRoute]
    /// The per-user quotas (nil when ``Configuration/quotas`` limits nothing); give them to the Firestore protocol's
    /// server too, so both doors draw on the same allowance.
    public let quotas: ServerQuotas?

    /// Creates a server.
    public init(
        store: DocumentStore, accounts: ServerAccounts, rules: ServerRules = .standard,
        configuration: Configuration = Configuration(), metrics: ServerMetrics = ServerMetrics(),
        routes: [ServerRoute] = [], logger: Logger = Logger(label: "suite.server")
    ) {
        self.routes = routes
        self.store = store
        self.sync = SyncHost(store: store)
        self.accounts = accounts
        self.rules = rules
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.quotas =
            configuration.quotas.isUnlimited
            ? nil : ServerQuotas(limits: configuration.quotas, store: store, metrics: metrics)
    }

    /// Serves until the surrounding service group shuts down gracefully (in-flight requests finish) or the task is
    /// cancelled. `onRunning` gets the bound port once the server listens.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let app = Application(
            router: router(),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "suite"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        do {
            try await app.run()
        } catch let error as IOError {
            throw ServerError(
                .unavailable, "cannot listen on \(configuration.host):\(configuration.port): \(error)",
                hint: "the port may be in use; pick another with --port", underlying: error)
        }
    }

    /// The routes.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: CompressionMiddleware(maximumBodyBytes: configuration.maximumBodyBytes))
        router.get("/healthz") { request, context in
            try await handle("/healthz", request) { _ in (200, .object(["status": .string("ok")])) }
        }
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        router.get("/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        router.get("/v1/docs/**") { request, context in
            try await handle("/v1/docs", request, context) { account, path, _ in try await get(account, path) }
        }
        router.put("/v1/docs/**") { request, context in
            try await handle("/v1/docs", request, context) { account, path, body in
                try await write(account, path, op: "set", body: body)
            }
        }
        router.patch("/v1/docs/**") { request, context in
            try await handle("/v1/docs", request, context) { account, path, body in
                try await write(account, path, op: "update", body: body)
            }
        }
        router.delete("/v1/docs/**") { request, context in
            try await handle("/v1/docs", request, context) { account, path, body in
                try await write(account, path, op: "delete", body: body)
            }
        }
        router.post("/v1/query") { request, context in
            try await handle("/v1/query", request) { request in
                let (account, body) = try await authenticated(request)
                return try await query(account, body ?? .object([:]))
            }
        }
        router.post("/v1/sync/push") { request, context in
            try await respond("/v1/sync/push", request) { request in
                let (account, body) = try await authenticated(request)
                return try await push(account, body ?? .null)
            }
        }
        router.get("/v1/sync/changes") { request, context in
            try await respond("/v1/sync/changes", request) { request in
                let (account, _) = try await authenticated(request)
                return try await changes(account, request.uri.queryParameters)
            }
        }
        router.get("/v1/sync/snapshot") { request, context in
            try await respond("/v1/sync/snapshot", request) { request in
                let (account, _) = try await authenticated(request)
                return try await snapshot(account, request.uri.queryParameters)
            }
        }
        router.post("/v1/commit") { request, context in
            try await handle("/v1/commit", request) { request in
                let (account, body) = try await authenticated(request)
                return try await commit(account, body ?? .null)
            }
        }
        addConsoleRoutes(to: router)
        return router
    }

    // MARK: Plumbing

    /// Answers a route: the body's JSON and status, or the error's; records metrics.
    func handle(
        _ route: String, _ request: Request, _ body: (Request) async throws -> (Int, JSONValue)
    ) async throws -> Response {
        try await respond(route, request) { request in
            let (status, json) = try await body(request)
            var text = json.jsonString
            text.append("\n")
            return (status, ByteBuffer(string: text))
        }
    }

    /// Answers a route with bytes already encoded (the sync routes encode their Codable answers once, directly).
    func respond(
        _ route: String, _ request: Request, _ body: (Request) async throws -> (Int, ByteBuffer)
    ) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        var bytes: ByteBuffer
        var retryAfter: Int?
        do {
            (status, bytes) = try await body(request)
        } catch {
            let failure = Self.serverError(error)
            if failure.code == .internalError { logger.error("\(request.method) \(request.uri.path): \(error)") }
            status = failure.code.status
            retryAfter = failure.retryAfter
            bytes = ByteBuffer(string: failure.json.jsonString + "\n")
        }
        let elapsed = start.duration(to: .now)
        metrics.record(
            method: request.method.rawValue, route: route, status: status,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: bytes))
    }

    /// A document route: the caller, the document path from the URL, the body's JSON.
    func handle(
        _ route: String, _ request: Request, _ context: BasicRequestContext,
        _ body: (ServerAccounts.Account, String, JSONValue?) async throws -> (Int, JSONValue)
    ) async throws -> Response {
        try await handle(route, request) { request in
            let (account, json) = try await authenticated(request)
            let path = Self.catchAllPath(context.parameters)
            guard !path.isEmpty else {
                throw ServerError(.invalidRequest, "no document path", hint: "e.g. /v1/docs/users/ana")
            }
            return try await body(account, path, json)
        }
    }

    /// The route's `**` part as a document path: its components without empty ones, joined by `/` (what
    /// `getCatchAll().joined(separator: "/")` gives), taken as it is when it is already so (one string, no split).
    static func catchAllPath(_ parameters: Parameters) -> String {
        guard let raw = parameters[Parameters.recursiveCaptureKey] else { return "" }
        let bytes = raw.utf8
        let slash = UInt8(ascii: "/")
        let clean =
            bytes.first != slash && bytes.last != slash
            && !zip(bytes, bytes.dropFirst()).contains { $0 == slash && $1 == slash }
        return clean ? String(raw) : raw.split(separator: "/").joined(separator: "/")
    }

    /// The caller (from `Authorization: Bearer …`, or the console's session cookie) and the body as JSON (nil when
    /// empty).
    /// The token of an `Authorization` header `Bearer TOKEN` (the scheme in any case, spaces and tabs around the
    /// token), or nil for another scheme. Read as bytes: a lowercased copy of the header and trimming by Characters
    /// were ~2 % of a GET.
    static func bearerToken(_ header: String) -> String? {
        let bytes = header.utf8
        var start = bytes.startIndex
        for expected in "bearer ".utf8 {
            guard start < bytes.endIndex else { return nil }
            let byte = bytes[start]
            guard (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == expected else { return nil }
            start = bytes.index(after: start)
        }
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        return String(header[start..<end])
    }

    func authenticated(_ request: Request) async throws -> (ServerAccounts.Account, JSONValue?) {
        let account: ServerAccounts.Account
        if let header = request.headers[.authorization], let token = Self.bearerToken(header) {
            guard let known = try await accounts.authenticate(token) else {
                throw ServerError(.unauthenticated, "the token is not valid", hint: "it may have been revoked")
            }
            account = known
        } else if let session = request.cookies[Self.sessionCookie]?.value, !session.isEmpty {
            guard let known = try await accounts.session(session) else {
                throw ServerError(
                    .unauthenticated, "the console session has ended",
                    hint: "sign in again with a link from `suite users signin UID`")
            }
            account = known
        } else {
            throw ServerError(
                .unauthenticated, "no bearer token",
                hint: "send Authorization: Bearer TOKEN (issue one with `suite users add UID`)")
        }
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > configuration.maximumBodyBytes { throw tooLarge() }
        // No Content-Length and no Transfer-Encoding: HTTP/1.1 says there is no body (a GET, as a rule). Not reading
        // the empty body stream saves a GET its iteration.
        if length == nil || length == 0, request.headers[.transferEncoding] == nil { return (account, nil) }
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: configuration.maximumBodyBytes) } catch let error
            as HTTPError where error.status == .contentTooLarge
        {
            throw tooLarge()
        } catch is NIOTooManyBytesError {
            // A chunked body (no Content-Length) over the limit.
            throw tooLarge()
        }
        guard buffer.readableBytes > 0 else { return (account, nil) }
        do {
            return (account, try JSONValue(parsing: String(decoding: buffer.readableBytesView, as: UTF8.self)))
        } catch let error as SuiteError {
            throw ServerError(.invalidRequest, "the body is not valid JSON: \(error.message)", hint: error.hint)
        }
    }

    func tooLarge() -> ServerError {
        ServerError(
            .tooLarge, "the body is over \(configuration.maximumBodyBytes) bytes",
            hint: "split the writes into several commits")
    }

    /// Throws 403 when the path rules refuse `path` to `account` (Firestore's rules decide later, with the data).
    func require(_ account: ServerAccounts.Account, write: Bool, _ path: String) throws {
        if rules.refusesByPath(account, write: write, path: path) {
            throw ServerError(
                .forbidden, "\(account.uid) may not \(write ? "write" : "read") \(path)",
                hint: "the rules allow users their own users/{uid}/** and workInfo/{uid}/**")
        }
    }

    /// Throws 403 unless the rules let `account` get the document at `path` (stored as `data`, nil when missing);
    /// `pathChecked` when the caller has already passed ``require(_:write:_:)`` for reading `path`.
    func requireGet(
        _ account: ServerAccounts.Account, _ path: String, data: DocumentData?, pathChecked: Bool = false
    ) async throws {
        if !pathChecked { try require(account, write: false, path) }
        guard case .firestore = rules else { return }
        let decision = await rules.decideGet(account, path: path, stored: data, store: store)
        guard decision.allowed else { throw Self.forbidden(account, "get", path, decision) }
    }

    /// Whether `account` may read the document at `path` (`data`, nil when deleted): the sync feed's filter.
    func mayRead(_ account: ServerAccounts.Account, _ path: String, _ data: DocumentData?) async -> Bool {
        switch rules {
        case .paths(let paths): paths.allows(account, write: false, path: path)
        case .firestore: await rules.decideGet(account, path: path, stored: data, store: store).allowed
        }
    }

    /// A 403 naming what the rules decided.
    static func forbidden(
        _ account: ServerAccounts.Account, _ action: String, _ path: String, _ decision: RulesDecision
    )
        -> ServerError
    {
        ServerError(
            .forbidden, "\(account.uid) may not \(action) \(path): \(decision.reason)",
            hint: "the server's rules decide who may read and write what; `suite rules test` shows which rule decides")
    }

    /// Maps any error to what the caller sees.
    static func serverError(_ error: any Error) -> ServerError {
        switch error {
        case let error as ServerError: return error
        case let error as DocumentsError:
            let code: ServerError.Code =
                switch error.code {
                case .invalidPath, .invalidField, .invalidValue, .invalidQuery, .missingIndex, .limitExceeded:
                    .invalidRequest
                case .notFound: .notFound
                case .preconditionFailed, .transactionAborted: .conflict
                case .permissionDenied: .forbidden
                case .rateLimited: .tooManyRequests
                case .storage, .corrupted, .unsupported: .unavailable
                default: .internalError
                }
            return ServerError(code, error.message, hint: error.hint, underlying: error)
        case let error as SyncError:
            let code: ServerError.Code =
                switch error.code {
                case .invalidInput: .invalidRequest
                case .resyncRequired: .gone
                default: .internalError
                }
            return ServerError(code, error.message, hint: error.hint, underlying: error)
        case let error as SuiteError:
            return ServerError(.invalidRequest, error.message, hint: error.hint, underlying: error)
        default:
            return ServerError(.internalError, "\(error)", underlying: error)
        }
    }
}
