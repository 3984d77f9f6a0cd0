import Foundation
package import SuiteCore
import Synchronization

extension ServerQuotas {
    /// Each user's use of the current windows against the limits, as `GET /v1/quotas` answers it (`uid` nil: every
    /// user with a counter). `used` is what servers leased minus what this server holds unused: exact with one
    /// server, an upper bound with several (another server's unused block counts as used).
    package func usage(uid: String?) async throws -> JSONValue {
        let now = clock.now
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let counters = if let uid { try await ledger.counter(uid) } else { try await ledger.all() }
        let held = state.withLock { $0.users }
        var users: [JSONValue] = []
        for (user, fields) in counters.sorted(by: { $0.uid < $1.uid }) {
            var entry: [String: JSONValue] = ["uid": .string(user)]
            for window in QuotaWindow.allCases {
                let index = seconds / window.seconds
                var kinds: [String: JSONValue] = [:]
                for kind in QuotaKind.allCases {
                    guard let limit = limits[window][kind] else { continue }
                    let leased = QuotaLedger.leased(fields, window, kind, index: index)
                    let block = held[user]?.slots[Key(uid: user, window: window, kind: kind).slot]
                    let unused = block.map { $0.index == index ? $0.available : 0 } ?? 0
                    let used = max(0, leased - unused)
                    kinds[kind.rawValue] = .object([
                        "used": .int(Int64(used)), "limit": .int(Int64(limit)),
                        "remaining": .int(Int64(max(0, limit - used))),
                    ])
                }
                entry[window.rawValue] = .object(kinds)
            }
            users.append(.object(entry))
        }
        var windows: [String: JSONValue] = [:]
        var configured: [String: JSONValue] = [:]
        for window in QuotaWindow.allCases {
            windows[window.rawValue] = .object(["resetsIn": .int(window.seconds - seconds % window.seconds)])
            var kinds: [String: JSONValue] = [:]
            for kind in QuotaKind.allCases {
                kinds[kind.rawValue] = limits[window][kind].map { .int(Int64($0)) } ?? .null
            }
            configured[window.rawValue] = .object(kinds)
        }
        return .object([
            "enabled": .bool(true), "admins": .string(limits.adminsExempt ? "exempt" : "limited"),
            "limits": .object(configured), "windows": .object(windows), "users": .array(users),
        ])
    }
}
