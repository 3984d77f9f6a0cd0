import Documents
import Foundation

/// The quotas' shared counters: per user, one document in the served store (`_suite/quotas/users/{id}`) holding,
/// for each window, its index and how much of each kind servers have leased in it. Leasing is one serializable
/// transaction on that document, so servers sharing a store (several `suite serve` on one PostgreSQL) never lease
/// more than the limit between them; each admits locally from what it leased.
struct QuotaLedger: Sendable {
    /// The collection of the counter documents. Not `__x__` (Documents refuses reserved ids on every path): a
    /// top-level `_suite` the standard rules give no user, and that no user's query reaches.
    static let collection = "_suite/quotas/users"

    /// One lease asked for: at least `need` of `kind` in the window `index`, up to a block sized from what remains.
    struct Request: Sendable, Hashable {
        var window: QuotaWindow
        var kind: QuotaKind
        var index: Int64
        var need: Int
        var limit: Int
    }

    /// The answer to one request.
    enum Grant: Sendable, Hashable {
        /// This much was leased (at least the need).
        case leased(Int)
        /// Less than the need remains (nothing was leased): `remaining` is what the ledger still holds.
        case short(remaining: Int)
    }

    let store: DocumentStore

    /// The document id of a user: the uid when it is a plain id, otherwise its UTF-8 in hex (so any uid maps to one
    /// valid id, and two uids never to the same one).
    static func documentID(_ uid: String) -> String {
        let plain =
            !uid.isEmpty && uid.count <= 200
            && uid.unicodeScalars.allSatisfy {
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" || $0 == "_"
            }
        return plain ? "u-" + uid : "x-" + uid.utf8.map { String(format: "%02x", $0) }.joined()
    }

    /// The uid a document id names (nil for an id not made by ``documentID(_:)``).
    static func uid(documentID id: String) -> String? {
        if id.hasPrefix("u-") { return String(id.dropFirst(2)) }
        guard id.hasPrefix("x-") else { return nil }
        let hex = Array(id.dropFirst(2).utf8)
        guard hex.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The field of a window's index and of a kind's leased amount in the counter document.
    static func indexField(_ window: QuotaWindow) -> String { window.rawValue }
    static func leasedField(_ window: QuotaWindow, _ kind: QuotaKind) -> String {
        "\(window.rawValue)-\(kind.rawValue)"
    }

    /// How much a server leases at once when `remaining` is left of `limit`: a twentieth of the limit while much
    /// remains, a quarter of the remainder as it shrinks, one at the end, so nothing past the limit is ever leased
    /// and a server rarely holds much another could have used.
    static func block(limit: Int, remaining: Int) -> Int {
        max(1, min(max(1, limit / 20), remaining / 4))
    }

    /// Leases every request in one transaction, or none when one of them cannot be met.
    func lease(uid: String, _ requests: [Request]) async throws -> [Grant] {
        let reference = try store.collection(Self.collection).document(Self.documentID(uid))
        return try await store.runTransaction(maxAttempts: 60) { transaction in
            let snapshot = try await transaction.getDocument(reference)
            var fields = snapshot.data ?? [:]
            var grants: [Grant] = []
            var short = false
            for request in requests {
                let leased = Self.leased(fields, request.window, request.kind, index: request.index)
                let remaining = max(0, request.limit - leased)
                guard remaining >= request.need else {
                    grants.append(.short(remaining: remaining))
                    short = true
                    continue
                }
                let amount = min(remaining, max(request.need, Self.block(limit: request.limit, remaining: remaining)))
                grants.append(.leased(amount))
                if fields[Self.indexField(request.window)] != .int(request.index) {
                    fields[Self.indexField(request.window)] = .int(request.index)
                    for kind in QuotaKind.allCases { fields[Self.leasedField(request.window, kind)] = .int(0) }
                }
                fields[Self.leasedField(request.window, request.kind)] = .int(Int64(leased + amount))
            }
            if short {
                return grants.map { grant in if case .leased = grant { .leased(0) } else { grant } }
            }
            transaction.setData(fields, forDocument: reference)
            return grants
        }
    }

    /// What servers leased of `kind` in the window `index` (0 when the document holds another window).
    static func leased(_ fields: DocumentData, _ window: QuotaWindow, _ kind: QuotaKind, index: Int64) -> Int {
        guard fields[indexField(window)] == .int(index), case .int(let leased)? = fields[leasedField(window, kind)]
        else { return 0 }
        return Int(leased)
    }

    /// One user's counter document (none before their first lease).
    func counter(_ uid: String) async throws -> [(uid: String, fields: DocumentData)] {
        let snapshot = try await store.collection(Self.collection).document(Self.documentID(uid)).getDocument()
        return snapshot.data.map { [(uid, $0)] } ?? []
    }

    /// Every user's counter document: uid and fields.
    func all() async throws -> [(uid: String, fields: DocumentData)] {
        let snapshot = try await store.collection(Self.collection).getDocuments()
        return snapshot.documents.compactMap { document in
            guard let uid = Self.uid(documentID: document.path.documentID), let data = document.data else { return nil }
            return (uid, data)
        }
    }
}
