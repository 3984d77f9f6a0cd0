import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SuiteServer
import SuiteTestSupport

/// A Firestore protocol server on loopback over a real SQLite store, and grpc-swift clients of it.
final class FirestoreTestServer: Sendable {
    let directory: URL
    let store: DocumentStore
    let accounts: ServerAccounts
    let metrics: ServerMetrics
    let port: Int
    private let task: Task<Void, any Error>

    static let project = "projects/demo-test/databases/(default)"
    static let root = project + "/documents"
    static let owner: Metadata = ["authorization": "Bearer owner"]

    static func start(
        rules: ServerRules = .standard, tokens: FirestoreTokens? = nil, quotas: QuotaLimits = QuotaLimits()
    ) async throws -> FirestoreTestServer {
        let directory = try TestSupport.makeTemporaryDirectory("firestore-protocol")
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let metrics = ServerMetrics()
        // Other databases: in memory, made when an admin first uses one.
        let others = OtherDatabases()
        let server = try FirestoreServer(
            store: store, accounts: accounts, rules: rules, metrics: metrics,
            configuration: .init(port: 0, acceptOwnerToken: true, maximumRequestBytes: 2 << 20, tokens: tokens),
            openDatabase: { id, create in await others.open(id, create: create) },
            quotas: quotas.isUnlimited ? nil : ServerQuotas(limits: quotas, store: store, metrics: metrics))
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { portSink.finish() }
            try await server.run { port in portSink.yield(port) }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server ended before it listened: its error.
            try await task.value
            throw CancellationError()
        }
        return FirestoreTestServer(
            directory: directory, store: store, accounts: accounts, metrics: metrics, port: port, task: task)
    }

    private init(
        directory: URL, store: DocumentStore, accounts: ServerAccounts, metrics: ServerMetrics, port: Int,
        task: Task<Void, any Error>
    ) {
        self.directory = directory
        self.store = store
        self.accounts = accounts
        self.metrics = metrics
        self.port = port
        self.task = task
    }

    /// Runs `body` with a client on a connection of its own (closed at the end: a dropped connection).
    func withClient<T: Sendable>(
        _ body: @escaping @Sendable (Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>) async throws -> T
    ) async throws -> T {
        try await withGRPCClient(
            transport: .http2NIOPosix(
                target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        ) { client in
            try await body(Google_Firestore_V1_Firestore.Client(wrapping: client))
        }
    }

    /// Drives one bidirectional stream of a client of its own: `open` starts it (the generated client's method),
    /// `body` sends with `send` and reads the answers one by one with `next`.
    func conversation<Request: Sendable, Response: Sendable, T: Sendable>(
        _ open:
            @escaping @Sendable (
                Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>,
                @escaping @Sendable (RPCWriter<Request>) async throws -> Void,
                @escaping @Sendable (StreamingClientResponse<Response>) async throws -> T
            ) async throws -> T,
        _ body:
            @escaping @Sendable (_ send: @Sendable (Request) -> Void, _ next: @Sendable () async throws -> Response?)
            async throws -> T
    ) async throws -> T {
        try await withClient { client in
            let (requests, feed) = AsyncStream<Request>.makeStream()
            return try await open(
                client, { writer in for await request in requests { try await writer.write(request) } }
            ) {
                response in
                let messages = Messages(response.messages)
                defer { feed.finish() }
                return try await body({ feed.yield($0) }, { try await messages.next() })
            }
        }
    }

    /// Runs `body` with a bare client, for calls the generated client cannot make (malformed bytes).
    func withRawClient<T: Sendable>(_ body: @Sendable (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T)
        async throws -> T
    {
        try await withGRPCClient(
            transport: .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext),
            handleClient: body)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
        await store.close()
        try? accounts.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static func name(_ path: String) -> String { root + "/" + path }

    static func value(_ number: Int64) -> Google_Firestore_V1_Value {
        var value = Google_Firestore_V1_Value()
        value.integerValue = number
        return value
    }

    static func document(_ path: String, _ fields: [String: Google_Firestore_V1_Value])
        -> Google_Firestore_V1_Document
    {
        var document = Google_Firestore_V1_Document()
        document.name = name(path)
        document.fields = fields
        return document
    }

    static func update(_ path: String, _ fields: [String: Google_Firestore_V1_Value]) -> Google_Firestore_V1_Write {
        var write = Google_Firestore_V1_Write()
        write.update = document(path, fields)
        return write
    }
}

/// The stores of other database ids in a test server.
actor OtherDatabases {
    private var stores: [String: DocumentStore] = [:]

    func open(_ id: String, create: Bool) -> DocumentStore? {
        if let store = stores[id] { return store }
        guard create else { return nil }
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        stores[id] = store
        return store
    }
}
