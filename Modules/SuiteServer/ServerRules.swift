public import Documents
import Foundation
import SuiteCore

/// The rules every door of `suite serve` applies: Suite's path rules (``AccessRules``, from YAML) or a
/// `firestore.rules` file in Firestore's own language (``FirestoreRules``), which also judges the data. Admins pass
/// both.
public enum ServerRules: Sendable {
    /// Path patterns with owner, signed-in or nobody.
    case paths(AccessRules)
    /// Firestore's rules language.
    case firestore(FirestoreRules)

    /// A user reads and writes `users/{uid}/**` and `workInfo/{uid}/**` only.
    public static var standard: ServerRules { .paths(.standard) }

    /// A line for `suite status`: how many path rules, or which rules file.
    public var summary: String {
        switch self {
        case .paths(let rules): "\(rules.rules.count) path rules"
        case .firestore(let rules): "\(rules.fileName) (Firestore's rules language)"
        }
    }

    /// Where the documents `account` may read can be (see ``AccessRules/readRoots(for:)``); the whole store for
    /// Firestore's rules, which judge each document.
    package func readRoots(for account: ServerAccounts.Account) -> [[String]] {
        switch self {
        case .paths(let rules): rules.readRoots(for: account)
        case .firestore: [[]]
        }
    }

    /// Whether the path rules already refuse `account` reading (or writing) `path`, before any document is read.
    /// Firestore's rules decide later, with the data.
    package func refusesByPath(_ account: ServerAccounts.Account, write: Bool, path: String) -> Bool {
        guard case .paths(let rules) = self else { return false }
        return !rules.allows(account, write: write, path: path)
    }

    /// Whether `account` may get the document at `path`, whose stored data is `stored` (nil when missing).
    package func decideGet(
        _ account: ServerAccounts.Account, path: String, stored: DocumentData?, store: DocumentStore,
        database: String = "(default)"
    ) async -> RulesDecision {
        if account.isAdmin { return RulesDecision(allowed: true, rule: nil, reason: "admins pass the rules") }
        switch self {
        case .paths(let rules):
            let allowed = rules.allows(account, write: false, path: path)
            return RulesDecision(allowed: allowed, rule: nil, reason: allowed ? "allowed by path" : "denied by path")
        case .firestore(let rules):
            var request = RulesRequest(method: .get, path: path, auth: Self.auth(account))
            request.database = database
            request.stored = stored
            return await rules.decide(request, reader: StoreReader(store: store))
        }
    }

    /// Whether `account` may list `collection` (a collection group's id when `group`) with `query`: allowed only
    /// when the rules allow every document it could return.
    package func decideList(
        _ account: ServerAccounts.Account, collection: String, group: Bool, query: RulesRequest.Query,
        store: DocumentStore, database: String = "(default)"
    ) async -> RulesDecision {
        if account.isAdmin { return RulesDecision(allowed: true, rule: nil, reason: "admins pass the rules") }
        switch self {
        case .paths(let rules):
            let allowed = !group && rules.allows(account, write: false, path: collection)
            return RulesDecision(allowed: allowed, rule: nil, reason: allowed ? "allowed by path" : "denied by path")
        case .firestore(let rules):
            var request = RulesRequest(method: .list, path: collection, auth: Self.auth(account))
            request.collectionGroup = group
            request.database = database
            request.query = query
            return await rules.decide(request, reader: StoreReader(store: store))
        }
    }

    /// The review a commit by `account` goes through, nil when none is needed (an admin, or path rules, which
    /// ``refusesByPath(_:write:path:)`` decides before the commit). Paths under `reserved` (the sync markers) are not
    /// the caller's writes and are not judged.
    package func review(
        for account: ServerAccounts.Account, database: String = "(default)", reserved: String? = nil
    ) -> CommitReview? {
        guard !account.isAdmin, case .firestore(let rules) = self else { return nil }
        let auth = Self.auth(account)
        let uid = account.uid
        return CommitReview(needsBefore: { rules.needsStoredDocument($0.string, database: database) }) {
            writes, documents in
            let judged = writes.filter { write in reserved.map { !write.path.string.hasPrefix($0 + "/") } ?? true }
            let time = Timestamp(Date())
            // Firestore's limit: 10 document reads for a request of one write, 20 for several, in all.
            let reads = RulesEvaluation.Reads(maximum: judged.count > 1 ? 20 : 10)
            for write in judged {
                // A document not read is judged by allows that treat create and update alike.
                // A write that may only create is a create, judged with the stored document if there is one (the
                // commit then fails on its precondition), as Firestore does.
                let method: RulesMethod =
                    write.after == nil
                    ? .delete
                    : (write.mustCreate || (write.isBeforeKnown && write.before == nil) ? .create : .update)
                var request = RulesRequest(method: method, path: write.path.string, auth: auth)
                request.database = database
                request.stored = write.before
                request.written = write.after
                request.time = time
                let decision = await rules.decide(request, reader: documents, reads: reads)
                guard decision.allowed else {
                    throw DocumentsError(
                        .permissionDenied, "\(uid) may not \(method.rawValue) \(write.path.string): \(decision.reason)",
                        hint: "the server's rules (\(rules.fileName)) decide who may write what")
                }
            }
        }
    }

    static func auth(_ account: ServerAccounts.Account) -> (uid: String, claims: [String: JSONValue])? {
        account.isAnonymous ? nil : (account.uid, account.claims)
    }

    /// Documents as `get()` reads them outside a commit: as stored.
    struct StoreReader: RulesDocumentReader {
        let store: DocumentStore

        func document(_ path: String, after: Bool) async throws -> DocumentData? {
            let snapshot = try await store.document(path).getDocument()
            return snapshot.data
        }
    }
}

extension CommitDocuments: RulesDocumentReader {}
