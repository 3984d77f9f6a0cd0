public import Foundation
import GRDB
import SuiteCore

/// One-time sign-in tokens (the link `suite serve` prints) and the console's sessions (an HttpOnly cookie). Both are
/// stored as SHA-256 hashes with an expiry, beside the bearer tokens.
extension ServerAccounts {
    /// How long a one-time sign-in token works.
    public static let signInLifetime: TimeInterval = 600
    /// How long a console session lasts.
    public static let sessionLifetime: TimeInterval = 12 * 3600

    /// Issues a one-time sign-in token for `uid`, valid for ``signInLifetime``. With `createAdmin`, a missing user
    /// is created as an admin first (the operator's link `suite serve` prints); otherwise the user must exist.
    public func issueSignIn(for uid: String, createAdmin: Bool = false, now: Date = Date()) async throws -> String {
        try Self.check(uid)
        let token = Self.newToken()
        let hash = Self.hash(token)
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE uid = ?", arguments: [uid]) != true {
                guard createAdmin else {
                    throw ServerError(.notFound, "no user \(uid)", hint: "add it with `suite users add \(uid)`")
                }
                try db.execute(
                    sql: "INSERT INTO users VALUES (?, 1, ?)", arguments: [uid, now.timeIntervalSince1970])
            }
            try db.execute(sql: "DELETE FROM sign_ins WHERE expires <= ?", arguments: [now.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO sign_ins VALUES (?, ?, ?)",
                arguments: [hash, uid, now.timeIntervalSince1970 + Self.signInLifetime])
        }
        return token
    }

    /// Uses up a one-time sign-in token: the account and a new session token, or nil when the token is unknown,
    /// used or expired.
    public func redeemSignIn(_ token: String, now: Date = Date()) async throws -> (Account, session: String)? {
        let hash = Self.hash(token)
        let uid = try await pool.write { db -> String? in
            let row = try Row.fetchOne(
                db, sql: "SELECT uid, expires FROM sign_ins WHERE hash = ?", arguments: [hash])
            try db.execute(sql: "DELETE FROM sign_ins WHERE hash = ?", arguments: [hash])
            guard let row, (row["expires"] as Double) > now.timeIntervalSince1970 else { return nil }
            return row["uid"]
        }
        guard let uid, let account = try await account(uid) else { return nil }
        return (account, try await startSession(for: account, now: now))
    }

    /// Starts a console session for `account`; the token goes into the session cookie.
    public func startSession(for account: Account, now: Date = Date()) async throws -> String {
        let token = Self.newToken()
        let hash = Self.hash(token)
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE expires <= ?", arguments: [now.timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO sessions VALUES (?, ?, ?)",
                arguments: [hash, account.uid, now.timeIntervalSince1970 + Self.sessionLifetime])
        }
        return token
    }

    /// The account of a live session, or nil.
    public func session(_ token: String, now: Date = Date()) async throws -> Account? {
        let hash = Self.hash(token)
        return try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT u.uid, u.admin FROM sessions s JOIN users u ON u.uid = s.uid
                    WHERE s.hash = ? AND s.expires > ?
                    """,
                arguments: [hash, now.timeIntervalSince1970]
            ).map { Account(uid: $0[0], isAdmin: $0[1]) }
        }
    }

    /// Ends a session (unknown tokens are ignored).
    public func endSession(_ token: String) async throws {
        let hash = Self.hash(token)
        try await pool.write { db in try db.execute(sql: "DELETE FROM sessions WHERE hash = ?", arguments: [hash]) }
    }

    /// The account of a user id, or nil.
    public func account(_ uid: String) async throws -> Account? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT uid, admin FROM users WHERE uid = ?", arguments: [uid])
                .map { Account(uid: $0[0], isAdmin: $0[1]) }
        }
    }
}
