import AsyncHTTPClient
import Documents
import Foundation
import NIOCore
import NIOHTTP1
import SuiteServer
import SuiteTestSupport

/// A `SuiteServer` in process on loopback over a real SQLite store, and a raw HTTP client of it: AsyncHTTPClient with
/// its decompression off, so a test sees the bytes on the wire.
final class CompressionServer: Sendable {
    let directory: URL
    let store: DocumentStore
    let accounts: ServerAccounts
    let port: Int
    let client: HTTPClient
    private let task: Task<Void, any Error>

    static func start(maximumBodyBytes: Int = 1 << 20) async throws -> CompressionServer {
        let directory = try TestSupport.makeTemporaryDirectory("server-compression")
        let store = DocumentStore(
            engine: try SQLiteDocumentEngine(path: directory.appendingPathComponent("documents.sqlite").path))
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let server = SuiteServer(
            store: store, accounts: accounts,
            configuration: .init(port: 0, maximumBodyBytes: maximumBodyBytes))
        let (port, task) = try await runOnLoopback(server)
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        return CompressionServer(
            directory: directory, store: store, accounts: accounts, port: port, client: client, task: task)
    }

    private init(
        directory: URL, store: DocumentStore, accounts: ServerAccounts, port: Int, client: HTTPClient,
        task: Task<Void, any Error>
    ) {
        self.directory = directory
        self.store = store
        self.accounts = accounts
        self.port = port
        self.client = client
        self.task = task
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// One raw exchange: the status, the headers and the body's bytes as they came.
    func send(
        _ method: HTTPMethod, _ path: String, token: String?, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> (status: Int, headers: HTTPHeaders, body: [UInt8]) {
        var request = HTTPClientRequest(url: url + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        var buffer = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), response.headers, buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    /// Stops the server and the client.
    func stop() async {
        task.cancel()
        _ = try? await task.value
        try? await client.shutdown()
    }
}
