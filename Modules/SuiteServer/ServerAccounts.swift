import Crypto
public import Foundation
import GRDB
public import SuiteCore
import Synchronization

#if canImport(Glibc)
    // In a release build, `struct stat`'s members come from Dispatch's C module (it includes <sys/stat.h> first).
    import CDispatch
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The accounts `suite serve` knows: user ids with bearer tokens, stored hashed (SHA-256) in an SQLite file of their
/// own. A token is shown once, when it is issued.
///
/// ```swift
/// let accounts = try ServerAccounts(path: "server.sqlite")
/// let token = try await accounts.add("ana")           // "suite_…", print it once
/// let who = try await accounts.authenticate(token)     // Account(uid: "ana", isAdmin: false)
/// ```
public final class ServerAccounts: Sendable {
    /// A user as the server sees a request's caller.
    public struct Account: Sendable, Hashable, Codable {
        /// The user id rules bind `{uid}` to.
        public var uid: String
        /// Whether the user may read and write everything.
        public var isAdmin: Bool
        /// The token's claims, as Firestore's rules see them in `request.auth.token` (a JWT's payload; empty for
        /// Suite's own tokens).
        public var claims: [String: JSONValue] = [:]

        /// A caller with no token (a signed-out app user on the Firestore protocol): `request.auth` is null to
        /// Firestore's rules, and it shares one quota with every other such caller.
        public static let anonymous = Account(uid: "", isAdmin: false)

        /// Whether the caller has no token (``anonymous``).
        public var isAnonymous: Bool { uid.isEmpty }

        /// An account as another door authenticated it (the Firestore protocol's JWT or emulator token).
        public init(uid: String, isAdmin: Bool, claims: [String: JSONValue] = [:]) {
            self.uid = uid
            self.isAdmin = isAdmin
            self.claims = claims
        }
    }

    /// A user in `list()`.
    public struct Entry: Sendable, Hashable, Codable {
        /// The user id.
        public var uid: String
        /// Whether the user is an admin.
        public var isAdmin: Bool
        /// When the user was added.
        public var created: Date
        /// Tokens that still work.
        public var tokens: Int
    }

    let pool: DatabasePool
    private let path: String
    private let logPath: String

    /// Opens (or creates) the accounts file.
    public init(path: String) throws {
        self.path = path
        logPath = path + "-wal"
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            pool = try FirstOpen.retrying {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try Self.migrator.migrate(pool)
                return pool
            }
        } catch {
            throw ServerError(
                .unavailable, "cannot open the accounts file \(path): \(error)",
                hint: "check that the data directory is writable")
        }
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (uid TEXT PRIMARY KEY, admin INTEGER NOT NULL, created REAL NOT NULL);
                    CREATE TABLE tokens (
                        hash TEXT PRIMARY KEY, uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
                        created REAL NOT NULL);
                    CREATE INDEX tokens_uid ON tokens(uid);
                    """)
        }
        migrator.registerMigration("v2") { db in
            // One-time sign-in links and the console's sessions: hashed like tokens, with an expiry.
            try db.execute(
                sql: """
                    CREATE TABLE sign_ins (
                        hash TEXT PRIMARY KEY, uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
                        expires REAL NOT NULL);
                    CREATE TABLE sessions (
                        hash TEXT PRIMARY KEY, uid TEXT NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
                        expires REAL NOT NULL);
                    """)
        }
        return migrator
    }()

    /// Adds a user and returns its first token. Throws when the user exists (unless `newToken`: then a further
    /// token is issued for it).
    public func add(_ uid: String, admin: Bool = false, newTokenIfExists: Bool = false) async throws -> String {
        try Self.check(uid)
        let token = Self.newToken()
        let hash = Self.hash(token)
        let now = Date().timeIntervalSince1970
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE uid = ?", arguments: [uid]) == true {
                guard newTokenIfExists else {
                    throw ServerError(
                        .invalidRequest, "user \(uid) already exists",
                        hint: "issue another token with `suite users token \(uid)`, or revoke it first")
                }
            } else {
                try db.execute(sql: "INSERT INTO users VALUES (?, ?, ?)", arguments: [uid, admin, now])
            }
            try db.execute(sql: "INSERT INTO tokens VALUES (?, ?, ?)", arguments: [hash, uid, now])
        }
        return token
    }

    /// Issues another token for an existing user.
    public func issueToken(for uid: String) async throws -> String {
        let exists = try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM users WHERE uid = ?", arguments: [uid]) == true
        }
        guard exists else {
            throw ServerError(.notFound, "no user \(uid)", hint: "add it with `suite users add \(uid)`")
        }
        return try await add(uid, newTokenIfExists: true)
    }

    /// The account a token belongs to, or nil. Answers from memory while the accounts file is unchanged (another
    /// process's `suite users revoke` changes it, so a revocation counts at once).
    ///
    /// The file is looked at (two `stat`s) at most once per ``stampInterval``, not on every request: a revocation
    /// counts within that time.
    public func authenticate(_ token: String) async throws -> Account? {
        let now = ContinuousClock.now
        let stale = cache.withLock { cache in now - cache.checked >= Self.stampInterval }
        let stamp = stale ? fileStamp() : nil
        let (generation, hit) = cache.withLock { cache -> (UInt64, Account??) in
            if let stamp {
                cache.checked = now
                if cache.stamp != stamp {
                    cache.stamp = stamp
                    cache.generation &+= 1
                    cache.accounts.removeAll()
                }
            }
            return (cache.generation, cache.accounts[token])
        }
        if let hit { return hit }
        let account = try await lookUp(token)
        cache.withLock { cache in
            if cache.generation == generation, cache.accounts.count < 10_000 { cache.accounts[token] = .some(account) }
        }
        return account
    }

    /// How long a look at the accounts file stands for: a revocation by another process counts within it.
    static let stampInterval = Duration.milliseconds(10)

    private struct Cache {
        var stamp = Stamp()
        var checked = ContinuousClock.now - .seconds(3_600)
        var generation: UInt64 = 0
        var accounts: [String: Account?] = [:]
    }
    private let cache = Mutex(Cache())

    /// Size and modification time of the file and of its write-ahead log.
    private struct Stamp: Equatable {
        var file = Part()
        var log = Part()

        struct Part: Equatable {
            var size: Int64 = -1
            var seconds: Int64 = -1
            var nanoseconds: Int64 = -1
        }
    }

    private func fileStamp() -> Stamp {
        // stat(2) itself: FileManager's attributes also look up the owner's user and group names, reading /etc/passwd
        // and /etc/group at every look (every 10 ms under load).
        func part(_ file: String) -> Stamp.Part {
            var info = stat()
            guard stat(file, &info) == 0 else { return Stamp.Part() }
            #if canImport(Darwin)
                let modified = info.st_mtimespec
            #else
                let modified = info.st_mtim
            #endif
            return Stamp.Part(
                size: Int64(info.st_size), seconds: Int64(modified.tv_sec), nanoseconds: Int64(modified.tv_nsec))
        }
        return Stamp(file: part(path), log: part(logPath))
    }

    private func lookUp(_ token: String) async throws -> Account? {
        let hash = Self.hash(token)
        return try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT u.uid, u.admin FROM tokens t JOIN users u ON u.uid = t.uid WHERE t.hash = ?",
                arguments: [hash]
            ).map { Account(uid: $0[0], isAdmin: $0[1]) }
        }
    }

    /// Every user, by id.
    public func list() async throws -> [Entry] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.uid, u.admin, u.created, (SELECT count(*) FROM tokens t WHERE t.uid = u.uid)
                    FROM users u ORDER BY u.uid
                    """
            ).map { Entry(uid: $0[0], isAdmin: $0[1], created: Date(timeIntervalSince1970: $0[2]), tokens: $0[3]) }
        }
    }

    /// Removes a user and every token of it; its documents stay.
    public func revoke(_ uid: String) async throws {
        let removed = try await pool.write { db in
            try db.execute(sql: "DELETE FROM tokens WHERE uid = ?", arguments: [uid])
            try db.execute(sql: "DELETE FROM sign_ins WHERE uid = ?", arguments: [uid])
            try db.execute(sql: "DELETE FROM sessions WHERE uid = ?", arguments: [uid])
            try db.execute(sql: "DELETE FROM users WHERE uid = ?", arguments: [uid])
            return db.changesCount
        }
        // This process sees its own revocation at once; other processes' within ``stampInterval``.
        cache.withLock { cache in
            cache.generation &+= 1
            cache.accounts.removeAll()
        }
        guard removed > 0 else {
            throw ServerError(.notFound, "no user \(uid)", hint: "`suite users list` shows the users")
        }
    }

    /// Closes the file.
    public func close() throws { try pool.close() }

    static func check(_ uid: String) throws {
        let allowed = uid.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        }
        guard !uid.isEmpty, uid.count <= 128, allowed, uid != ".", uid != ".." else {
            throw ServerError(
                .invalidRequest, "'\(uid)' is not a user id",
                hint: "use letters, digits, '-', '_' and '.', e.g. ana or team-lead")
        }
    }

    static func newToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "suite_" + text
    }

    static func hash(_ token: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
