import Documents
import Foundation
import PostgresNIO

/// PostgreSQL's failures in the engine's words: a ``DocumentsError`` naming the server (`host:port/database`) and
/// what was being done, with a hint — never the password.
enum PostgresErrors {
    /// SQLSTATE classes and codes worth a message of their own.
    private static let loginFailures: Set<String> = ["28000", "28P01"]
    private static let missingDatabase = "3D000"

    /// A failure while connecting at start.
    static func atStart(_ error: any Error, _ options: PostgresOptions) -> DocumentsError {
        let server = options.displayName
        if let psql = error as? PSQLError {
            let state = psql.serverInfo?[.sqlState] ?? ""
            let message = psql.serverInfo?[.message] ?? ""
            if loginFailures.contains(state) {
                return DocumentsError(
                    .storage, "PostgreSQL at \(server) refused the login of user '\(options.username)': \(message)",
                    hint: "check the user and password in the 'url' option (and pg_hba.conf on the server)")
            }
            if state == missingDatabase {
                return DocumentsError(
                    .storage, "PostgreSQL at \(server) has no database '\(options.database)'",
                    hint: "create it (createdb \(options.database)) or name another in the 'url' option")
            }
            if psql.code == .server {
                return DocumentsError(
                    .storage, "PostgreSQL at \(server) refused to start the store: \(message) (SQLSTATE \(state))",
                    hint: "the user needs the right to create schema '\(options.schema)' and its tables")
            }
            if [.unsupportedAuthMechanism, .authMechanismRequiresPassword, .saslError].contains(psql.code) {
                return DocumentsError(
                    .storage, "PostgreSQL at \(server) asked for a login this engine cannot give (\(psql.code))",
                    hint: "put the password in the 'url' option: postgres://user:password@host/db")
            }
            if [.sslUnsupported, .failedToAddSSLHandler].contains(psql.code) {
                return DocumentsError(
                    .storage, "PostgreSQL at \(server) does not accept TLS",
                    hint: "use ?sslmode=disable or prefer in the 'url' option")
            }
        }
        return DocumentsError(
            .storage, "cannot reach PostgreSQL at \(server): \(reason(error))",
            hint: "is the server running and listening there? (pg_isready -h \(options.host) -p \(options.port))")
    }

    /// No connection came within the connect timeout while the server was failing.
    static func noConnection(_ options: PostgresOptions) -> DocumentsError {
        DocumentsError(
            .storage,
            "cannot reach PostgreSQL at \(options.displayName): no connection within "
                + "\(options.connectTimeout.components.seconds) s",
            hint: "is the server up? (the engine keeps reconnecting) Or every connection of the pool is busy: "
                + "raise 'pool-size' or 'connect-timeout'")
    }

    /// Whether `error` comes from postgres-nio (not from the caller's code run inside a transaction).
    static func isPostgres(_ error: any Error) -> Bool {
        error is PSQLError || error is PostgresDecodingError || "\(type(of: error))" == "ConnectionPoolError"
            || "\(type(of: error))".hasPrefix("Postgres")
    }

    /// Whether `error` is a lost or refused connection (worth one retry for a read).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if "\(type(of: error))" == "ConnectionPoolError" { return true }  // e.g. the circuit breaker is open
        if error is PostgresConnectionClosed { return true }
        guard let psql = error as? PSQLError else { return false }
        return [.serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection].contains(
            psql.code)
    }

    /// A failure during an operation.
    static func wrap(_ error: any Error, _ what: String, _ options: PostgresOptions, idempotent: Bool) -> DocumentsError
    {
        let server = options.displayName
        if isConnectionLoss(error) {
            return DocumentsError(
                .storage, "lost the connection to PostgreSQL at \(server) while \(what)",
                hint: idempotent
                    ? "is the server up? The read was retried once"
                    : "a commit applies whole or not at all; re-read to see which")
        }
        if let psql = error as? PSQLError, psql.code == .server {
            let state = psql.serverInfo?[.sqlState] ?? ""
            let message = psql.serverInfo?[.message] ?? ""
            if state == "22021" {
                return DocumentsError(
                    .invalidValue, "PostgreSQL refused a text value while \(what): \(message)",
                    hint: "paths and index names cannot contain the NUL character on PostgreSQL")
            }
            return DocumentsError(
                .storage, "PostgreSQL at \(server) failed while \(what): \(message) (SQLSTATE \(state))",
                hint: "see the server's log for details")
        }
        if let psql = error as? PSQLError, psql.code == .poolClosed {
            return DocumentsError(
                .storage, "the postgres engine for \(server) is shut down", hint: "open the store again")
        }
        return DocumentsError(.storage, "PostgreSQL at \(server) failed while \(what): \(reason(error))")
    }

    /// The cause in a few words: NIO's connection errors are long nested descriptions.
    private static func reason(_ error: any Error) -> String {
        var text = "\(error)"
        if let psql = error as? PSQLError { text = psql.underlying.map { "\($0)" } ?? "\(psql.code)" }
        for (needle, short) in [
            ("Connection refused", "connection refused"), ("timed out", "timed out"), ("imeout", "timed out"),
            ("No route to host", "no route to host"), ("Network is unreachable", "network unreachable"),
            ("No such file or directory", "no such socket"), ("unresolvable", "unknown host"),
        ] where text.contains(needle) {
            return short
        }
        return text
    }
}

/// The connection closed under an operation that did not end (``ConnectionWatchdog``).
struct PostgresConnectionClosed: Error, CustomStringConvertible {
    var description: String { "the connection closed under the operation, which was never answered" }
}
