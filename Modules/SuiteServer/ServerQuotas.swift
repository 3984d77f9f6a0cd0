public import Documents
import Foundation
public import SuiteCore
import Synchronization

/// Admits or refuses each request against the per-user ``QuotaLimits``, for every door of one `suite serve` (the JSON
/// API, sync, the Firestore protocol).
///
/// A request is admitted locally from blocks of allowance the server leased from the shared ledger (a counter
/// document per user in the served store, see `QuotaLedger`): no store round trip per request. When a block runs out,
/// one transaction leases the next, sized from what remains, so servers sharing a store never admit more than the
/// limit between them. Leases are taken one at a time per server.
public final class ServerQuotas: Sendable {
    /// The limits.
    public let limits: QuotaLimits
    let ledger: QuotaLedger
    let metrics: ServerMetrics
    let clock: any WallClock
    let state = Mutex(State())
    private let gate = QuotaLeaseGate()

    struct Key: Hashable {
        var uid: String
        var window: QuotaWindow
        var kind: QuotaKind

        /// The key's place among a user's blocks.
        var slot: Int { (window == .minute ? 0 : 3) + (kind == .reads ? 0 : kind == .writes ? 1 : 2) }
    }

    /// What this server holds of one user's allowance in one window.
    struct Block {
        var index: Int64
        /// Leased and not yet admitted.
        var available = 0
        /// The ledger had nothing left for this window.
        var exhausted = false
    }

    /// A user's blocks, one slot per window and kind: one lookup of the uid per request.
    struct UserBlocks {
        var slots = [Block?](repeating: nil, count: 6)

        /// The block of `need`'s window, nil when none is held for its current index.
        func block(_ need: Need) -> Block? {
            slots[need.key.slot].flatMap { $0.index == need.index ? $0 : nil }
        }
    }

    struct State {
        var users: [String: UserBlocks] = [:]
    }

    /// One window and kind a request needs.
    struct Need {
        var key: Key
        var index: Int64
        var amount: Int
        var limit: Int
    }

    enum Outcome {
        case admitted
        case refused(Need)
        case lease([Need])
    }

    /// Creates the quotas of a server over `store` (where the shared counters live), counting refusals in `metrics`;
    /// windows follow `clock` (the store's clock by default).
    public init(
        limits: QuotaLimits, store: DocumentStore, metrics: ServerMetrics, clock: (any WallClock)? = nil
    ) {
        self.limits = limits
        self.ledger = QuotaLedger(store: store)
        self.metrics = metrics
        self.clock = clock ?? store.clock
    }

    /// Admits a request of `account` costing `cost`, or throws ``ServerError`` `tooManyRequests` with
    /// `retryAfter` set. Admins are not counted when ``QuotaLimits/adminsExempt``.
    package func admit(_ account: ServerAccounts.Account, _ cost: QuotaCost) async throws {
        guard !cost.isZero, !(account.isAdmin && limits.adminsExempt) else { return }
        let now = clock.now
        // Callers with no token share one counter, under a name no user id can take (ids have no parentheses).
        let needs = self.needs(account.isAnonymous ? "(anonymous)" : account.uid, cost, at: now)
        guard !needs.isEmpty else { return }
        switch take(needs) {
        case .admitted: return
        case .refused(let need): throw refusal(need, at: now)
        case .lease: break
        }
        await gate.lock()
        defer { gate.unlock() }
        try await lease(needs, at: now)
    }

    /// The windows and kinds `cost` draws on, with their limits.
    func needs(_ uid: String, _ cost: QuotaCost, at now: Date) -> [Need] {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        var needs: [Need] = []
        for window in QuotaWindow.allCases {
            for kind in QuotaKind.allCases {
                guard cost[kind] > 0, let limit = limits[window][kind] else { continue }
                needs.append(
                    Need(
                        key: Key(uid: uid, window: window, kind: kind), index: seconds / window.seconds,
                        amount: cost[kind], limit: limit))
            }
        }
        return needs
    }

    /// Admits from the local blocks when they hold all of `needs` (taking from each at once), refuses when a window
    /// is known exhausted, otherwise names what to lease.
    func take(_ needs: [Need]) -> Outcome {
        state.withLock { state in Self.take(needs, from: &state.users[needs[0].key.uid, default: UserBlocks()]) }
    }

    private static func take(_ needs: [Need], from user: inout UserBlocks) -> Outcome {
        var missing: [Need] = []
        for need in needs {
            let block = user.block(need)
            if block?.exhausted == true || need.amount > need.limit { return .refused(need) }
            let available = block?.available ?? 0
            if available < need.amount {
                var short = need
                short.amount = need.amount - available
                missing.append(short)
            }
        }
        guard missing.isEmpty else { return .lease(missing) }
        for need in needs { user.slots[need.key.slot]?.available -= need.amount }
        return .admitted
    }

    /// Leases what the local blocks lack, then admits (one lease at a time per server: the caller holds the gate).
    private func lease(_ needs: [Need], at now: Date) async throws {
        // Another request may have leased meanwhile.
        let missing: [Need]
        switch take(needs) {
        case .admitted: return
        case .refused(let need): throw refusal(need, at: now)
        case .lease(let list): missing = list
        }
        let grants = try await ledger.lease(
            uid: needs[0].key.uid,
            missing.map {
                QuotaLedger.Request(
                    window: $0.key.window, kind: $0.key.kind, index: $0.index, need: $0.amount, limit: $0.limit)
            })
        var refused: Need?
        state.withLock { state in
            for (need, grant) in zip(missing, grants) {
                var block = state.users[need.key.uid]?.block(need) ?? Block(index: need.index)
                switch grant {
                case .leased(let amount): block.available += amount
                case .short(let remaining):
                    refused = refused ?? need
                    if remaining == 0 { block.exhausted = true }
                }
                state.users[need.key.uid, default: UserBlocks()].slots[need.key.slot] = block
            }
        }
        if let refused { throw refusal(refused, at: now) }
        switch take(needs) {
        case .admitted: return
        case .refused(let need): throw refusal(need, at: now)
        case .lease(let list): throw refusal(list[0], at: now)
        }
    }

    /// The error a refused request gets, counted in `/metrics`.
    func refusal(_ need: Need, at now: Date) -> ServerError {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let retryAfter = Int(need.key.window.seconds - seconds % need.key.window.seconds)
        metrics.recordQuotaRejection(kind: need.key.kind.rawValue, window: need.key.window.rawValue)
        let kind = need.key.kind.rawValue
        let window = need.key.window.rawValue
        var error: ServerError
        if need.amount > need.limit {
            error = ServerError(
                .tooManyRequests,
                "the request needs \(need.amount) \(kind), over the limit of \(need.limit) \(kind) per \(window)",
                hint: "split it into requests of at most \(need.limit) documents")
        } else {
            error = ServerError(
                .tooManyRequests, "\(need.key.uid) has used the \(need.limit) \(kind) allowed per \(window)",
                hint: "retry in \(retryAfter) s (Retry-After); the limits are server.quotas in the configuration")
        }
        error.retryAfter = retryAfter
        return error
    }
}
