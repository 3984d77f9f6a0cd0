import Documents
import GRPCCore
import SuiteServer

/// Who calls over the Firestore protocol and what the server's rules let them do: the same accounts and rules as
/// the JSON API.
struct FirestoreAccess: Sendable {
    let accounts: ServerAccounts
    let rules: ServerRules
    /// Whether the token `owner` (what Google's clients send to an emulator) is an admin. Only on loopback.
    let acceptOwnerToken: Bool
    /// JWTs of the app's identity provider, when configured.
    let tokens: TokenVerifier?
    /// The per-user quotas, shared with the JSON API.
    let quotas: ServerQuotas?

    init(
        accounts: ServerAccounts, rules: ServerRules, acceptOwnerToken: Bool, tokens: TokenVerifier? = nil,
        quotas: ServerQuotas? = nil
    ) {
        self.quotas = quotas
        self.accounts = accounts
        self.rules = rules
        self.acceptOwnerToken = acceptOwnerToken
        self.tokens = tokens
    }

    /// The caller named by `authorization: Bearer …`. Without one, under Firestore's rules, a signed-out app user
    /// (``ServerAccounts/Account/anonymous``, `request.auth == null`); under path rules, UNAUTHENTICATED.
    func caller(_ metadata: Metadata) async throws -> ServerAccounts.Account {
        guard let header = metadata[stringValues: "authorization"].first(where: { _ in true }) else {
            if case .firestore = rules { return .anonymous }
            throw RPCError(
                code: .unauthenticated,
                message:
                    "Missing authorization: send 'authorization: Bearer TOKEN' (issue a token with `suite users add UID`)"
            )
        }
        var token = Substring(header)
        if token.lowercased().hasPrefix("bearer ") { token = token.dropFirst("bearer ".count) }
        let trimmed = String(token.drop(while: { $0 == " " }))
        if trimmed == "owner" {
            guard acceptOwnerToken else {
                throw RPCError(
                    code: .unauthenticated,
                    message:
                        "The emulator token 'owner' is accepted only when suite serve runs with --accept-owner-token")
            }
            return ServerAccounts.Account(uid: "owner", isAdmin: true)
        }
        if let tokens, TokenVerifier.looksLikeJWT(trimmed) {
            return ServerAccounts.Account(
                uid: try await tokens.uid(trimmed), isAdmin: false, claims: TokenVerifier.claims(trimmed))
        }
        guard let account = try await accounts.authenticate(trimmed) else {
            throw RPCError(code: .unauthenticated, message: "The bearer token is not valid (it may have been revoked)")
        }
        return account
    }

    /// Fails with PERMISSION_DENIED when the path rules refuse `caller` reading (or writing) `path`; Firestore's
    /// rules decide later, with the data.
    func require(_ caller: ServerAccounts.Account, write: Bool, _ path: String) throws {
        if rules.refusesByPath(caller, write: write, path: path) { throw Self.denied }
    }

    /// Fails with PERMISSION_DENIED unless the rules let `caller` get the document at `path`, stored as `data`.
    func requireGet(
        _ caller: ServerAccounts.Account, _ path: String, data: DocumentData?, in database: FirestoreService.Database
    )
        async throws
    {
        try require(caller, write: false, path)
        guard case .firestore = rules else { return }
        let decision = await rules.decideGet(
            caller, path: path, stored: data, store: database.store, database: database.names.databaseID)
        guard decision.allowed else { throw Self.denied }
    }

    /// Fails with PERMISSION_DENIED unless the rules allow every document `query` could return.
    func requireList(_ caller: ServerAccounts.Account, _ query: TranslatedQuery, in database: FirestoreService.Database)
        async throws
    {
        let group = query.target.contains("**")
        guard case .firestore = rules else {
            if group, !caller.isAdmin { throw Self.denied }
            try require(caller, write: false, query.target)
            return
        }
        let collection = group ? String(query.target.split(separator: "/").last ?? "") : query.target
        let decision = await rules.decideList(
            caller, collection: collection, group: group,
            query: RulesRequest.Query(
                limit: query.limit, offset: query.offset == 0 ? nil : query.offset,
                orderBy: query.query.orderFields, fixed: query.query.fixedValues),
            store: database.store, database: database.names.databaseID)
        guard decision.allowed else { throw Self.denied }
    }

    /// The review each commit by `caller` goes through (Firestore's rules on the data), nil when none is needed.
    func review(_ caller: ServerAccounts.Account, in database: FirestoreService.Database) -> CommitReview? {
        rules.review(for: caller, database: database.names.databaseID)
    }

    static let denied = RPCError(code: .permissionDenied, message: "Missing or insufficient permissions.")
}
