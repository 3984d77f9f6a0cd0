import Documents
import FirestoreProtocol
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SuiteServer
import SuiteTestSupport
import Testing

/// With a certificate and key configured, the port speaks TLS: a client trusting the certificate reads through it,
/// and a plaintext client gets nothing.
@Suite struct TLSTests {
    /// A self-signed certificate for 127.0.0.1 and its key (openssl, from Debian), in `directory`.
    static func certificate(in directory: URL) throws -> (certificate: String, key: String) {
        let certificate = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = TestProcess()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            throw RPCError(code: .internalError, message: "openssl req failed (\(openssl.terminationStatus))")
        }
        return (certificate, key)
    }

    @Test func aClientTrustingTheCertificateReadsOverTLS() async throws {
        let directory = try TestSupport.makeTemporaryDirectory("firestore-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (certificate, key) = try Self.certificate(in: directory)
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        _ = try await store.document("users/ana").setData(["n": 7])
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        let server = try FirestoreServer(
            store: store, accounts: accounts, rules: .standard,
            configuration: .init(port: 0, certificateFile: certificate, privateKeyFile: key, acceptOwnerToken: true),
            openDatabase: { _, _ in nil })
        let (ports, sink) = AsyncStream<Int>.makeStream()
        let task = Task {
            defer { sink.finish() }
            try await server.run { sink.yield($0) }
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        var request = Google_Firestore_V1_GetDocumentRequest()
        request.name = FirestoreTestServer.name("users/ana")
        let read = try await withGRPCClient(
            transport: .http2NIOPosix(
                target: .ipv4(address: "127.0.0.1", port: port),
                transportSecurity: .tls(
                    .defaults { $0.trustRoots = .certificates([.file(path: certificate, format: .pem)]) }))
        ) { client in
            try await Google_Firestore_V1_Firestore.Client(wrapping: client).getDocument(
                request, metadata: FirestoreTestServer.owner)
        }
        #expect(read.fields["n"]?.integerValue == 7)
        let plaintext = await #expect(throws: RPCError.self) {
            try await withGRPCClient(
                transport: .http2NIOPosix(
                    target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
            ) { client in
                try await Google_Firestore_V1_Firestore.Client(wrapping: client).getDocument(
                    request, metadata: FirestoreTestServer.owner,
                    options: { () -> CallOptions in
                        var options = CallOptions.defaults
                        options.timeout = .seconds(10)
                        return options
                    }())
            }
        }
        #expect(plaintext?.code == .unavailable || plaintext?.code == .deadlineExceeded)
        task.cancel()
        _ = try? await task.value
        try? accounts.close()
    }

    @Test func halfATLSConfigurationIsRefused() throws {
        let store = DocumentStore(engine: InMemoryDocumentEngine())
        let directory = try TestSupport.makeTemporaryDirectory("firestore-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let accounts = try ServerAccounts(path: directory.appendingPathComponent("server.sqlite").path)
        #expect(throws: ServerError.self) {
            _ = try FirestoreServer(
                store: store, accounts: accounts, rules: .standard,
                configuration: .init(port: 0, certificateFile: "cert.pem"), openDatabase: { _, _ in nil })
        }
        try? accounts.close()
    }
}
