import Documents
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle
import SuiteCore
import Sync

/// The web console (`/console`, its files embedded in this module) and the routes it adds to the API: sessions,
/// collection listings, pages of a collection and the change stream (docs/api.md, "The console's routes").
extension SuiteServer {
    /// The session cookie's name.
    static let sessionCookie = "suite_session"

    /// The console's files by URL name: content type and bytes.
    static let consoleFiles: [String: (type: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "console.css": ("text/css; charset=utf-8", PackageResources.console_css),
        "components.css": ("text/css; charset=utf-8", PackageResources.components_css),
        "pages.css": ("text/css; charset=utf-8", PackageResources.pages_css),
        "charts.js": ("text/javascript; charset=utf-8", PackageResources.charts_js),
        "dom.js": ("text/javascript; charset=utf-8", PackageResources.dom_js),
        "live.js": ("text/javascript; charset=utf-8", PackageResources.live_js),
        "documents.js": ("text/javascript; charset=utf-8", PackageResources.documents_js),
        "document.js": ("text/javascript; charset=utf-8", PackageResources.document_js),
        "query.js": ("text/javascript; charset=utf-8", PackageResources.query_js),
        "usage.js": ("text/javascript; charset=utf-8", PackageResources.usage_js),
        "storage.js": ("text/javascript; charset=utf-8", PackageResources.storage_js),
        "analytics.js": ("text/javascript; charset=utf-8", PackageResources.analytics_js),
        "work.js": ("text/javascript; charset=utf-8", PackageResources.work_js),
        "system.js": ("text/javascript; charset=utf-8", PackageResources.system_js),
        "console.js": ("text/javascript; charset=utf-8", PackageResources.console_js),
    ]

    func addConsoleRoutes(to router: Router<BasicRequestContext>) {
        router.get("/console") { _, _ in consoleFile("index.html") }
        router.get("/console/:file") { _, context in consoleFile(context.parameters.get("file") ?? "") }
        router.post("/v1/session") { request, _ in try await signIn(request) }
        router.get("/v1/session") { request, _ in
            try await handle("/v1/session", request) { request in
                let (account, _) = try await authenticated(request)
                return (200, .object(["uid": .string(account.uid), "admin": .bool(account.isAdmin)]))
            }
        }
        router.delete("/v1/session") { request, _ in
            var response = try await handle("/v1/session", request) { request in
                if let token = request.cookies[Self.sessionCookie]?.value { try await accounts.endSession(token) }
                return (200, .object(["signedOut": .bool(true)]))
            }
            response.setCookie(Self.cookie(value: "", maxAge: 0))
            return response
        }
        router.get("/v1/collections") { request, _ in
            try await handle("/v1/collections", request) { request in
                let (account, _) = try await authenticated(request)
                guard account.isAdmin else {
                    throw ServerError(
                        .forbidden, "only admins may list the top-level collections",
                        hint: "open your own document instead: users/\(account.uid)")
                }
                return (200, .object(["collections": .array(try await store.collectionIDs().map(JSONValue.string))]))
            }
        }
        router.get("/v1/collections/**") { request, context in
            try await handle("/v1/collections", request, context) { account, path, _ in
                // Firestore's rules: the subcollections of a document the caller may get.
                try await requireGet(account, path, data: try await store.document(path).getDocument().data)
                let ids = try await store.collectionIDs(under: try DocumentPath(path))
                return (200, .object(["collections": .array(ids.map(JSONValue.string))]))
            }
        }
        router.get("/v1/list/**") { request, context in
            try await handle("/v1/list", request, context) { account, path, _ in
                try await listPage(account, path, request.uri.queryParameters)
            }
        }
        router.get("/v1/changes/stream") { request, _ in
            do {
                let (account, _) = try await authenticated(request)
                return try await changeStream(account, request)
            } catch {
                return try await handle("/v1/changes/stream", request) { _ in throw error }
            }
        }
        addQuotaRoutes(to: router)
        for route in routes { add(route, to: router) }
    }

    /// A file of the console, or 404.
    func consoleFile(_ name: String) -> Response {
        var headers = HTTPFields()
        guard let file = Self.consoleFiles[name] else {
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(
                status: .notFound, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "no such file\n")))
        }
        headers[.contentType] = file.type
        headers[.cacheControl] = "no-cache"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.init("Referrer-Policy")!] = "no-referrer"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// `POST /v1/session`: a one-time sign-in token or a bearer token becomes a session cookie.
    func signIn(_ request: Request) async throws -> Response {
        var session: (ServerAccounts.Account, String)?
        var response = try await handle("/v1/session", request) { request in
            var request = request
            guard let buffer = try? await request.collectBody(upTo: 16 * 1024) else {
                throw ServerError(.tooLarge, "the body is over 16 KiB: send {\"signIn\": \"…\"} or {\"token\": \"…\"}")
            }
            let body = try? JSONValue(parsing: String(decoding: buffer.readableBytesView, as: UTF8.self))
            guard let object = body?.objectValue, object.count == 1,
                let key = object.keys.first, let token = object[key]?.stringValue
            else {
                throw ServerError(
                    .invalidRequest, "the body must be {\"signIn\": \"…\"} or {\"token\": \"…\"}",
                    hint: "the sign-in token is in the link `suite serve` prints")
            }
            let account: ServerAccounts.Account
            let sessionToken: String
            switch key {
            case "signIn":
                guard let (redeemed, token) = try await accounts.redeemSignIn(token) else {
                    throw ServerError(
                        .unauthenticated,
                        "the sign-in link is not valid: it was used already or is older than "
                            + "\(Int(ServerAccounts.signInLifetime / 60)) minutes",
                        hint: "get a new one with `suite users signin UID`")
                }
                (account, sessionToken) = (redeemed, token)
            case "token":
                guard let known = try await accounts.authenticate(token) else {
                    throw ServerError(.unauthenticated, "the token is not valid", hint: "it may have been revoked")
                }
                (account, sessionToken) = (known, try await accounts.startSession(for: known))
            default:
                throw ServerError(
                    .invalidRequest, "unknown key '\(key)'",
                    hint: Suggestion.didYouMean(key, among: ["signIn", "token"], what: "keys"))
            }
            session = (account, sessionToken)
            return (200, .object(["uid": .string(account.uid), "admin": .bool(account.isAdmin)]))
        }
        if let session {
            response.setCookie(Self.cookie(value: session.1, maxAge: Int(ServerAccounts.sessionLifetime)))
        }
        return response
    }

    static func cookie(value: String, maxAge: Int) -> Cookie {
        Cookie(name: sessionCookie, value: value, maxAge: maxAge, path: "/", httpOnly: true, sameSite: .strict)
    }

    /// `GET /v1/list/{collection}?after=PATH&limit=N`: one page of a collection in path order.
    func listPage(_ account: ServerAccounts.Account, _ path: String, _ query: Parameters) async throws -> (
        Int, JSONValue
    ) {
        let collection = try CollectionPath(path)
        try require(account, write: false, path)
        var limit = 50
        if let text = query.get("limit") {
            guard let value = Int(text), (1...1_000).contains(value) else {
                throw ServerError(.invalidRequest, "limit must be an integer from 1 to 1000, not '\(text)'")
            }
            limit = value
        }
        if case .firestore = rules {
            // A page of the whole collection: allowed only when the rules allow every document in it.
            let decision = await rules.decideList(
                account, collection: path, group: false, query: RulesRequest.Query(limit: limit), store: store)
            guard decision.allowed else { throw Self.forbidden(account, "list", path, decision) }
        }
        let after = try query.get("after").map { try DocumentPath($0) }
        let page = try await store.listDocuments(in: collection, after: after, limit: limit + 1)
        let shown = page.prefix(limit)
        try await admit(account, .reads(shown.count))
        metrics.documents(read: shown.count)
        let next: JSONValue = page.count > limit ? .string(shown.last?.path.string ?? "") : .null
        return (200, .object(["documents": .array(shown.map(\.json)), "next": next]))
    }

    /// `GET /v1/changes/stream?since=SEQ`: server-sent events of the changes the caller may read, until the client
    /// goes away or the server shuts down.
    func changeStream(_ account: ServerAccounts.Account, _ request: Request) async throws -> Response {
        let resume = request.headers[.init("Last-Event-ID")!] ?? request.uri.queryParameters.get("since")
        let since: Int64
        if let resume {
            guard let value = Int64(resume), value >= 0 else {
                throw ServerError(.invalidRequest, "since must be a sequence (an integer ≥ 0), not '\(resume)'")
            }
            since = value
        } else {
            since = try await store.lastSequence()
        }
        metrics.record(method: "GET", route: "/v1/changes/stream", status: 200, seconds: 0)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let body = ResponseBody { [sync, metrics, since, self] writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\nevent: ready\ndata: {\"sequence\":\(since)}\n\n"))
            var cursor = since
            var quiet = Duration.zero
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            // Waits a second at a time, so a graceful shutdown (which lets requests in flight finish) ends the stream.
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let page: SyncChangesResponse
                do {
                    page = try await sync.changes(since: cursor, limit: 500, wait: .seconds(1)) {
                        await mayRead(account, $0, $1)
                    }
                } catch is CancellationError {
                    break
                } catch let error as SyncError where error.code == .resyncRequired {
                    try await writer.write(ByteBuffer(string: "event: gone\ndata: {}\n\n"))
                    break
                }
                var text = ""
                for change in page.changes {
                    let data = String(decoding: try encoder.encode(change), as: UTF8.self)
                    text += "id: \(change.sequence)\nevent: change\ndata: \(data)\n\n"
                }
                metrics.documents(read: page.changes.count)
                quiet = text.isEmpty ? quiet + .seconds(1) : .zero
                if quiet >= .seconds(15) {
                    text = ": still here\n\n"
                    quiet = .zero
                }
                if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
                cursor = page.sequence
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Adds a module's route.
    func add(_ route: ServerRoute, to router: Router<BasicRequestContext>) {
        let names = route.parameterNames
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            try await handle(route.path, request) { request in
                let (account, body) = try await authenticated(request)
                var parameters: [String: String] = [:]
                for name in names { parameters[name] = context.parameters.get(name)?.removingPercentEncoding }
                var query: [String: String] = [:]
                for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
                let serverRequest = ServerRequest(
                    account: account, parameters: parameters, query: query, body: body, rules: rules, store: store)
                return (200, try await route.handler(serverRequest))
            }
        }
        switch route.method {
        case .get: router.get(RouterPath(route.path), use: handler)
        case .post: router.post(RouterPath(route.path), use: handler)
        }
    }
}
