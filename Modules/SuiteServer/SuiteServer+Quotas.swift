import Hummingbird
import SuiteCore

extension SuiteServer {
    /// Admits a request of `account` costing `cost` against the quotas, or throws 429 (nothing when none are
    /// configured).
    func admit(_ account: ServerAccounts.Account, _ cost: QuotaCost) async throws {
        try await quotas?.admit(account, cost)
    }

    /// `GET /v1/quotas`: each user's use of the current minute and day against the limits (the console's Usage
    /// page); an admin sees every user, another user only themselves.
    func addQuotaRoutes(to router: Router<BasicRequestContext>) {
        router.get("/v1/quotas") { request, _ in
            try await handle("/v1/quotas", request) { request in
                let (account, _) = try await authenticated(request)
                guard let quotas else { return (200, .object(["enabled": .bool(false), "users": .array([])])) }
                return (200, try await quotas.usage(uid: account.isAdmin ? nil : account.uid))
            }
        }
    }
}
