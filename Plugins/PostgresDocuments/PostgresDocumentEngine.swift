import Documents
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import SuiteCore
import Synchronization

/// A ``DocumentEngine`` on a PostgreSQL server: every `suite` process or server pointed at the same database and
/// schema shares one store. See ``PostgresSchema`` for the tables and ``PostgresOptions`` for the configuration.
///
/// Commits are one call of the schema's `commit_v3` function (one round trip, one statement: a commit applies whole or
/// not at all, even when the connection drops halfway). Reads are single statements on a connection pool
/// (postgres-nio's `PostgresClient`).
final class PostgresDocumentEngine: Sendable {
    let options: PostgresOptions
    let client: PostgresClient
    let schema: String
    let logger: Logger
    let notifier: PostgresChangeNotifier
    /// Whether this engine has committed a write (its shutdown then prunes the change log).
    let hasCommitted = Atomic<Bool>(false)
    /// Whether the last copied commit found documents that existed: the next one checks before it copies (see
    /// ``commitByCopy(_:_:_:on:)``).
    let copyChecksFirst = Atomic<Bool>(false)
    /// Tells the commits this engine prepared from those of other engines.
    let instanceID = UUID()
    private let runner: Task<Void, Never>
    private let watchdog: ConnectionWatchdog

    /// Connects, checks the login and the database, creates the schema when missing, then starts the pool. Blocks
    /// the calling thread until the server answered (never a thread of Swift's cooperative pool: NIO's futures).
    init(options: PostgresOptions, logger: Logger) throws {
        self.options = options
        self.schema = options.schema
        self.logger = logger
        try Self.prepareSchema(options, logger: logger)
        var configuration = try Self.clientConfiguration(options)
        configuration.options.maximumConnections = options.poolSize
        configuration.options.minimumConnections = 0
        // Unqualified names in the prepared statements (PostgresStatements.swift) resolve to the engine's schema.
        configuration.options.additionalStartupParameters = [("search_path", options.schema)]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
        self.watchdog = ConnectionWatchdog(leaseTimeout: options.connectTimeout)
        self.notifier = PostgresChangeNotifier(
            client: client, channel: PostgresSchema.channel(options.schema), logger: logger)
    }

    // MARK: Connecting

    private static func tls(_ options: PostgresOptions) throws -> PostgresClient.Configuration.TLS {
        switch options.sslMode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    static func clientConfiguration(_ options: PostgresOptions) throws -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let directory = options.socketDirectory {
            configuration = PostgresClient.Configuration(
                unixSocketPath: "\(directory)/.s.PGSQL.\(options.port)", username: options.username,
                password: options.password, database: options.database)
        } else {
            configuration = PostgresClient.Configuration(
                host: options.host, port: options.port, username: options.username, password: options.password,
                database: options.database, tls: try tls(options))
        }
        configuration.options.connectTimeout = options.connectTimeout
        return configuration
    }

    private static func connectionConfiguration(_ options: PostgresOptions) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let directory = options.socketDirectory {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: "\(directory)/.s.PGSQL.\(options.port)", username: options.username,
                password: options.password, database: options.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            switch options.sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = PostgresConnection.Configuration(
                host: options.host, port: options.port, username: options.username, password: options.password,
                database: options.database, tls: tls)
        }
        let seconds = Int64(options.connectTimeout.components.seconds)
        configuration.options.connectTimeout = .seconds(seconds)
        return configuration
    }

    /// One connection at start: the login, the database and the schema, so a wrong URL fails here, naming the server.
    private static func prepareSchema(_ options: PostgresOptions, logger: Logger) throws {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try connectionConfiguration(options),
                id: 0, logger: logger
            ).wait()
        } catch {
            throw PostgresErrors.atStart(error, options)
        }
        defer { _ = try? connection.close().wait() }
        do {
            let s = options.schema
            _ = try connection.query("SELECT pg_advisory_lock(hashtext(\(s)))", logger: logger).wait()
            defer { _ = try? connection.query("SELECT pg_advisory_unlock_all()", logger: logger).wait() }
            let exists = try connection.query(
                "SELECT 1 FROM pg_tables WHERE schemaname = \(s) AND tablename = 'state'", logger: logger
            ).wait()
            if exists.rows.isEmpty {
                // Transactional DDL: a crash halfway leaves no half-made schema.
                _ = try connection.query("BEGIN", logger: logger).wait()
                for statement in PostgresSchema.statements(s) {
                    _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
                }
                _ = try connection.query("COMMIT", logger: logger).wait()
            }
            let rows = try connection.query(
                PostgresQuery(unsafeSQL: "SELECT format FROM \(s).state WHERE id = 1"), logger: logger
            ).wait().rows
            var format = try rows.first?.decode(Int.self) ?? 0
            if format == 2 {
                // Layout 2 (a change-log row per path) becomes layout 3 in one transaction, under the lock above.
                _ = try connection.query("BEGIN", logger: logger).wait()
                for statement in PostgresSchema.migrationFrom2(s) {
                    _ = try connection.query(PostgresQuery(unsafeSQL: statement), logger: logger).wait()
                }
                _ = try connection.query("COMMIT", logger: logger).wait()
                logger.notice("schema '\(s)' moved from layout 2 to layout 3 (one change-log row per commit)")
                format = 3
            }
            guard format == PostgresSchema.format else {
                throw DocumentsError(
                    .corrupted,
                    "schema '\(s)' in \(options.displayName) has layout \(format); this engine reads layout "
                        + "\(PostgresSchema.format)",
                    hint: "use the Suite version that made it, or another schema (option 'schema')")
            }
            if !exists.rows.isEmpty {
                // Keep the functions current (a newer plugin may have fixed them).
                for function in PostgresSchema.functions(s) {
                    _ = try connection.query(PostgresQuery(unsafeSQL: function), logger: logger).wait()
                }
            }
        } catch let error as DocumentsError {
            throw error
        } catch {
            throw PostgresErrors.atStart(error, options)
        }
    }

    // MARK: Running statements

    /// Runs `body` on a pooled connection; a lost connection is retried once (reads only: `idempotent`), and
    /// PostgreSQL's errors become ``DocumentsError``s that name the server, never the password.
    func run<T: Sendable>(
        _ what: String, idempotent: Bool = true, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await onConnection(body)
        } catch let error as DocumentsError {
            throw error
        } catch  where !PostgresErrors.isPostgres(error) {
            throw error  // the caller's own error, from inside `body`
        } catch {
            if idempotent, PostgresErrors.isConnectionLoss(error) {
                do { return try await onConnection(body) } catch let error as DocumentsError {
                    throw error
                } catch {
                    throw PostgresErrors.wrap(error, what, options, idempotent: idempotent)
                }
            }
            throw PostgresErrors.wrap(error, what, options, idempotent: idempotent)
        }
    }

    /// `body` on a leased connection. While connections fail, postgres-nio's pool keeps a request waiting until its
    /// circuit breaker opens, a minute later; here a lease still waiting after `connect-timeout` is cancelled by the
    /// ``ConnectionWatchdog`` and fails with a clear error, while the pool keeps reconnecting in the background. Once
    /// leased, `body` has no deadline while its connection is open; if the connection closes under it and `body`
    /// does not end soon after, the watchdog fails it as a lost connection (see ``ConnectionWatchdog/guarding(_:_:)``).
    private func onConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let ticket = watchdog.waiting()
        do {
            return try await client.withConnection { connection in
                watchdog.leased(ticket)
                return try await watchdog.guarding(connection, body)
            }
        } catch {
            if watchdog.leased(ticket) { throw PostgresErrors.noConnection(options) }
            throw error
        }
    }

    /// Runs `body` between `BEGIN` and `COMMIT` (`ROLLBACK` when it throws, whose error it rethrows as is);
    /// `readOnlySnapshot`: a read-only transaction whose statements all see one snapshot (`REPEATABLE READ`).
    static func inTransaction<T>(
        _ connection: PostgresConnection, logger: Logger, readOnlySnapshot: Bool = false,
        _ body: () async throws -> T
    ) async throws -> T {
        try await connection.query(
            readOnlySnapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", logger: logger)
        do {
            let value = try await body()
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    static func buffer(_ bytes: [UInt8]) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return buffer
    }

    static func bytes(_ buffer: ByteBuffer) -> [UInt8] {
        buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes) ?? []
    }

    func stop() async {
        watchdog.stop()
        await notifier.stop()
        runner.cancel()
        await runner.value
    }
}
