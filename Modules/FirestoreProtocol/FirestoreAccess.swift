import GRPCCore
import SuiteServer

/// Who calls over the Firestore protocol and what the server's rules let them do: the same accounts and rules as
/// the JSON API.
struct FirestoreAccess: Sendable {
    let accounts: ServerAccounts
    let rules: AccessRules
    /// Whether the token `owner` (what Google's clients send to an emulator) is an admin. Only on loopback.
    let acceptOwnerToken: Bool
    /// JWTs of the app's identity provider, when configured.
    let tokens: TokenVerifier?
    /// The per-user quotas, shared with the JSON API.
    let quotas: ServerQuotas?

    init(
        accounts: ServerAccounts, rules: AccessRules, acceptOwnerToken: Bool, tokens: TokenVerifier? = nil,
        quotas: ServerQuotas? = nil
    ) {
        self.quotas = quotas
        self.accounts = accounts
        self.rules = rules
        self.acceptOwnerToken = acceptOwnerToken
        self.tokens = tokens
    }

    /// The caller named by `authorization: Bearer …`.
    func caller(_ metadata: Metadata) async throws -> ServerAccounts.Account {
        guard let header = metadata[stringValues: "authorization"].first(where: { _ in true }) else {
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
            return ServerAccounts.Account(uid: try await tokens.uid(trimmed), isAdmin: false)
        }
        guard let account = try await accounts.authenticate(trimmed) else {
            throw RPCError(code: .unauthenticated, message: "The bearer token is not valid (it may have been revoked)")
        }
        return account
    }

    /// Fails with PERMISSION_DENIED unless the rules let `caller` read (or write) `path`.
    func require(_ caller: ServerAccounts.Account, write: Bool, _ path: String) throws {
        guard rules.allows(caller, write: write, path: path) else {
            throw RPCError(code: .permissionDenied, message: "Missing or insufficient permissions.")
        }
    }
}
