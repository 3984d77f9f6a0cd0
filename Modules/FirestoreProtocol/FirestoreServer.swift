public import Documents
import GRPCCore
import GRPCNIOTransportHTTP2Posix
public import Logging
import ServiceLifecycle
public import SuiteServer

/// Firestore's protocol on its own port beside the JSON API: HTTP/2 gRPC, plaintext on loopback or TLS when a
/// certificate and key are configured. Google's client libraries reach it as they reach the emulator
/// (`FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT`), Firebase's SDKs through their emulator setting.
///
/// ```swift
/// let firestore = FirestoreServer(
///     store: store, accounts: accounts, rules: .standard,
///     configuration: .init(port: 8081), openDatabase: { id, create in nil })
/// try await firestore.run { port in print("Firestore protocol on 127.0.0.1:\(port)") }
/// ```
public struct FirestoreServer: Sendable {
    /// Where and how the protocol listens.
    public struct Configuration: Sendable {
        /// The address to bind (loopback by default).
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// A PEM certificate chain file: with ``privateKeyFile``, the port speaks TLS.
        public var certificateFile: String?
        /// The PEM private key of ``certificateFile``.
        public var privateKeyFile: String?
        /// Accept the token `owner` (what Google's clients send to an emulator) as an admin; only on loopback.
        public var acceptOwnerToken: Bool
        /// The largest writes request accepted (INVALID_ARGUMENT past it, as Firestore answers; the transport cuts
        /// a message over twice this size and 1 MiB more).
        public var maximumRequestBytes: Int
        /// Declare the composite indexes that queries need when they first run, as Firestore's emulator needs none
        /// declared; off, a query missing one fails with FAILED_PRECONDITION and the command that adds it, as
        /// Firestore does.
        public var autoIndexes: Bool
        /// JWTs of the app's identity provider accepted beside Suite's tokens (their `sub` is the uid).
        public var tokens: FirestoreTokens?

        /// Creates a configuration.
        public init(
            host: String = "127.0.0.1", port: Int = 8081, certificateFile: String? = nil,
            privateKeyFile: String? = nil, acceptOwnerToken: Bool = false, maximumRequestBytes: Int = 11 << 20,
            autoIndexes: Bool = false, tokens: FirestoreTokens? = nil
        ) {
            self.tokens = tokens
            self.autoIndexes = autoIndexes
            self.host = host
            self.port = port
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
            self.acceptOwnerToken = acceptOwnerToken
            self.maximumRequestBytes = maximumRequestBytes
        }

        /// Whether `host` is a loopback address.
        public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }
    }

    /// Opens the store of a database other than `(default)`; nil when it does not exist and `create` is false.
    public typealias DatabaseOpener = @Sendable (_ id: String, _ create: Bool) async throws -> DocumentStore?

    let configuration: Configuration
    let databases: FirestoreDatabases
    let accounts: ServerAccounts
    let rules: ServerRules
    let metrics: ServerMetrics
    let quotas: ServerQuotas?
    let logger: Logger

    /// Creates the server over the `(default)` database `store`, with the JSON API's accounts, rules, metrics and
    /// quotas (`SuiteServer`'s `quotas`, so both doors draw on one allowance). Throws when the owner token is accepted on an address other than loopback, or TLS is half configured.
    public init(
        store: DocumentStore, accounts: ServerAccounts, rules: ServerRules, metrics: ServerMetrics = ServerMetrics(),
        configuration: Configuration = Configuration(), openDatabase: @escaping DatabaseOpener,
        quotas: ServerQuotas? = nil, logger: Logger = Logger(label: "suite.firestore")
    ) throws {
        self.quotas = quotas
        if configuration.acceptOwnerToken && !configuration.isLoopback {
            throw ServerError(
                .invalidRequest,
                "--accept-owner-token makes anyone who sends the token 'owner' an admin: refused on \(configuration.host)",
                hint: "serve the Firestore protocol on 127.0.0.1, or sign clients in with a user token")
        }
        if (configuration.certificateFile == nil) != (configuration.privateKeyFile == nil) {
            throw ServerError(
                .invalidRequest, "TLS needs both a certificate file and a private key file",
                hint: "set server.firestore.certificate-file and server.firestore.private-key-file")
        }
        self.configuration = configuration
        self.logger = logger
        self.databases = FirestoreDatabases(main: store, opener: openDatabase)
        self.accounts = accounts
        self.rules = rules
        self.metrics = metrics
    }

    /// The service, its token keys checked (a key that does not parse fails the start, naming it).
    func service() async throws -> FirestoreService {
        var verifier: TokenVerifier?
        if let tokens = configuration.tokens {
            do {
                verifier = TokenVerifier(settings: tokens, keys: try await tokens.collection())
            } catch let error as FirestoreTokenError {
                throw ServerError(
                    .invalidRequest, "server.firestore.jwt: \(error.message)",
                    hint: "give a PEM public key or certificate for RS256/ES256, a secret for HS256")
            }
        }
        return FirestoreService(
            databases: databases,
            access: FirestoreAccess(
                accounts: accounts, rules: rules, acceptOwnerToken: configuration.acceptOwnerToken, tokens: verifier,
                quotas: quotas),
            metrics: metrics, autoIndexes: configuration.autoIndexes,
            maximumRequestBytes: configuration.maximumRequestBytes, logger: logger)
    }

    /// Serves until the task is cancelled or the surrounding service group shuts down; `onRunning` gets the bound
    /// port once it listens. The stores of other databases close at the end.
    public func run(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        var config = HTTP2ServerTransport.Posix.Config.defaults
        config.rpc.maxRequestPayloadSize = configuration.maximumRequestBytes * 2 + (1 << 20)
        let security: HTTP2ServerTransport.Posix.TransportSecurity
        if let certificate = configuration.certificateFile, let key = configuration.privateKeyFile {
            security = .tls(
                .defaults(
                    certificateChain: [.file(path: certificate, format: .pem)],
                    privateKey: .file(path: key, format: .pem)))
        } else {
            security = .plaintext
        }
        let address: GRPCNIOTransportCore.SocketAddress =
            configuration.host.contains(":")
            ? .ipv6(host: configuration.host, port: configuration.port)
            : .ipv4(
                host: configuration.host == "localhost" ? "127.0.0.1" : configuration.host, port: configuration.port)
        let server = GRPCServer(
            transport: .http2NIOPosix(address: address, transportSecurity: security, config: config),
            services: [try await service()])
        defer { Task { [databases] in await databases.close() } }
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                // Stops on the surrounding service group's graceful shutdown, and on cancellation (the other door
                // failed to start).
                try await withTaskCancellationHandler {
                    try await withGracefulShutdownHandler {
                        try await server.serve()
                    } onGracefulShutdown: {
                        server.beginGracefulShutdown()
                    }
                } onCancel: {
                    server.beginGracefulShutdown()
                }
            }
            do {
                let bound = try await server.listeningAddress
                await onRunning(bound?.ipv4?.port ?? bound?.ipv6?.port ?? configuration.port)
            } catch {
                throw ServerError(
                    .unavailable,
                    "cannot listen for the Firestore protocol on \(configuration.host):\(configuration.port): \(error)",
                    hint: "the port may be in use; pick another with --firestore-port", underlying: error)
            }
        }
    }
}

extension FirestoreService: Google_Firestore_V1_Firestore.ServiceProtocol {}
