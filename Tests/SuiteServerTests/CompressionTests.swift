import Documents
import Foundation
import NIOHTTP1
import SuiteCore
import SuiteHTTP
import SuiteServer
import SuiteTestSupport
import Sync
import Testing
import TransportTestSupport

/// gzip and deflate on `suite serve`'s wire, seen raw: answers encoded as `Accept-Encoding` asks, request bodies
/// decoded (or refused with 400, 413, 415), and Sync over both transports with compression on.
@Suite("SuiteServer compression on the wire")
struct CompressionTests {
    /// A document whose JSON is a few kilobytes: over the 1 KB below which answers stay plain.
    static let bigData: JSONValue = .object([
        "name": "Ana", "notes": .array((0..<60).map { .string("note number \($0) about the same few things") }),
    ])

    static func json(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONValue(parsing: String(decoding: bytes, as: UTF8.self))
    }

    /// A server with ana's token and her big document at users/ana.
    static func serverWithDocument(maximumBodyBytes: Int = 1 << 20) async throws -> (CompressionServer, String) {
        let server = try await CompressionServer.start(maximumBodyBytes: maximumBodyBytes)
        let token = try await server.accounts.add("ana")
        let body = Array(JSONValue.object(["data": bigData]).jsonString.utf8)
        let written = try await server.send(.PUT, "/v1/docs/users/ana", token: token, body: body)
        #expect(written.status == 200)
        return (server, token)
    }

    @Test("a client that accepts gzip gets a gzip body that decodes to the plain answer, with Vary")
    func gzipWhenAccepted() async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        let plain = try await server.send(.GET, "/v1/docs/users/ana", token: token)
        let gzipped = try await server.send(
            .GET, "/v1/docs/users/ana", token: token, headers: [("Accept-Encoding", "gzip, deflate")])
        #expect(plain.status == 200)
        #expect(plain.body.count > 1024)
        #expect(gzipped.status == 200)
        #expect(gzipped.headers.first(name: "content-encoding") == "gzip")
        #expect(gzipped.headers.first(name: "vary")?.lowercased().contains("accept-encoding") == true)
        #expect(gzipped.headers.first(name: "content-length") == String(gzipped.body.count))
        #expect(gzipped.body.prefix(2) == [0x1f, 0x8b])
        #expect(gzipped.body.count < plain.body.count / 3)
        #expect(try HTTPCompression.gunzip(gzipped.body) == plain.body)
        #expect(try Self.json(plain.body)["data"] == Self.bigData)
    }

    @Test(
        "a client that does not accept gzip gets plain bodies",
        arguments: [nil, "identity", "br", "gzip;q=0", "gzip;q=0, deflate;q=0", "*;q=0", "identity, *;q=0"])
    func plainWhenNotAccepted(_ acceptEncoding: String?) async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        let answer = try await server.send(
            .GET, "/v1/docs/users/ana", token: token, headers: acceptEncoding.map { [("Accept-Encoding", $0)] } ?? [])
        #expect(answer.status == 200)
        #expect(answer.headers.first(name: "content-encoding") == nil)
        #expect(answer.headers.first(name: "vary")?.lowercased().contains("accept-encoding") == true)
        #expect(try Self.json(answer.body)["data"] == Self.bigData)
    }

    @Test("deflate when it is preferred; gzip refused with q=0 leaves deflate")
    func deflateWhenPreferred() async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        let plain = try await server.send(.GET, "/v1/docs/users/ana", token: token)
        for header in ["deflate", "gzip;q=0.5, deflate", "gzip;q=0, *"] {
            let answer = try await server.send(
                .GET, "/v1/docs/users/ana", token: token, headers: [("Accept-Encoding", header)])
            #expect(answer.headers.first(name: "content-encoding") == "deflate", "\(header)")
            #expect(answer.body.first == 0x78, "\(header): the zlib format")
            #expect(try HTTPCompression.inflate(answer.body) == plain.body, "\(header)")
        }
    }

    @Test("an answer under 1 KB stays plain; a large one of any route (openapi.json) is compressed")
    func smallAnswersStayPlain() async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        let health = try await server.send(.GET, "/healthz", token: nil, headers: [("Accept-Encoding", "gzip")])
        #expect(health.status == 200)
        #expect(health.headers.first(name: "content-encoding") == nil)
        #expect(try Self.json(health.body)["status"] == "ok")
        let openAPI = try await server.send(.GET, "/openapi.json", token: nil, headers: [("Accept-Encoding", "gzip")])
        #expect(openAPI.headers.first(name: "content-encoding") == "gzip")
        #expect(try Self.json(try HTTPCompression.gunzip(openAPI.body))["openapi"] != nil)
    }

    @Test("a gzip'd or deflated request body is read as the JSON it encodes", arguments: HTTPContentCoding.allCases)
    func compressedRequestBodiesAreAccepted(_ coding: HTTPContentCoding) async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        let data: JSONValue = .object(["points": 7, "coding": .string(coding.rawValue)])
        let body = try HTTPCompression.encode(Array(JSONValue.object(["data": data]).jsonString.utf8), as: coding)
        let written = try await server.send(
            .PUT, "/v1/docs/users/ana/notes/n", token: token,
            headers: [("Content-Encoding", coding.rawValue), ("Content-Type", "application/json")], body: body)
        #expect(written.status == 200, "\(String(decoding: written.body, as: UTF8.self))")
        let read = try await server.send(.GET, "/v1/docs/users/ana/notes/n", token: token)
        #expect(try Self.json(read.body)["data"] == data)
        // A commit and a query read their bodies the same way.
        let commit = JSONValue.object([
            "writes": .array([.object(["op": "set", "path": "users/ana/notes/m", "data": data])])
        ])
        let committed = try await server.send(
            .POST, "/v1/commit", token: token, headers: [("Content-Encoding", coding.rawValue)],
            body: try HTTPCompression.encode(Array(commit.jsonString.utf8), as: coding))
        #expect(committed.status == 200, "\(String(decoding: committed.body, as: UTF8.self))")
    }

    @Test("a corrupt gzip body is 400 with a message that says so")
    func corruptBodiesAre400() async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        var body = try HTTPCompression.gzip(Array(JSONValue.object(["data": Self.bigData]).jsonString.utf8))
        body[body.count / 2] ^= 0xFF
        for bytes in [body, Array(#"{"data": {"plain": true}}"#.utf8), Array(body.prefix(body.count / 2))] {
            let answer = try await server.send(
                .PUT, "/v1/docs/users/ana", token: token, headers: [("Content-Encoding", "gzip")], body: bytes)
            #expect(answer.status == 400)
            let error = try Self.json(answer.body)["error"]
            #expect(error?["code"] == "invalidRequest")
            #expect(error?["message"]?.stringValue?.contains("gzip") == true, "\(String(describing: error))")
            #expect(error?["hint"]?.stringValue != nil)
        }
        // Nothing was written.
        let read = try await server.send(.GET, "/v1/docs/users/ana", token: token)
        #expect(try Self.json(read.body)["data"] == Self.bigData)
    }

    @Test("an unknown Content-Encoding is 415 with a hint")
    func unknownCodingsAre415() async throws {
        let (server, token) = try await Self.serverWithDocument()
        defer { Task { await server.stop() } }
        for coding in ["br", "zstd", "gzip, br"] {
            let answer = try await server.send(
                .POST, "/v1/commit", token: token, headers: [("Content-Encoding", coding)], body: Array("{}".utf8))
            #expect(answer.status == 415, "\(coding)")
            let error = try Self.json(answer.body)["error"]
            #expect(error?["code"] == "unsupportedMediaType")
            #expect(error?["hint"]?.stringValue?.contains("gzip") == true)
        }
        let identity = try await server.send(
            .POST, "/v1/query", token: token, headers: [("Content-Encoding", "identity")],
            body: Array(#"{"collection": "users/ana/notes"}"#.utf8))
        #expect(identity.status == 200, "\(String(decoding: identity.body, as: UTF8.self))")
    }

    @Test("a body over the limit once decoded is 413: a zip bomb stops at the limit")
    func decodedBodiesOverTheLimitAre413() async throws {
        let (server, token) = try await Self.serverWithDocument(maximumBodyBytes: 64 << 10)
        defer { Task { await server.stop() } }
        let padding = String(repeating: "x", count: 8 << 20)
        let bomb = try HTTPCompression.gzip(
            Array(JSONValue.object(["data": .object(["padding": .string(padding)])]).jsonString.utf8))
        #expect(bomb.count < 64 << 10)
        let answer = try await server.send(
            .PUT, "/v1/docs/users/ana", token: token, headers: [("Content-Encoding", "gzip")], body: bomb)
        #expect(answer.status == 413)
        #expect(try Self.json(answer.body)["error"]?["code"] == "tooLarge")
        // Under the limit once decoded: written.
        let fits = try HTTPCompression.gzip(
            Array(
                JSONValue.object(["data": .object(["padding": .string(String(padding.prefix(40_000)))])]).jsonString
                    .utf8))
        let written = try await server.send(
            .PUT, "/v1/docs/users/ana", token: token, headers: [("Content-Encoding", "gzip")], body: fits)
        #expect(written.status == 200)
    }

    @Test("Sync pushes gzip'd and pulls gzip'd over both transports, end to end", arguments: TransportKind.allCases)
    func syncEndToEnd(_ kind: TransportKind) async throws {
        let server = try await CompressionServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.accounts.add("ana")
        func replica(_ name: String, _ recorder: RecordingTransport) async throws -> SyncClient {
            let path = server.directory.appendingPathComponent("\(name).sqlite").path
            let transport = try HTTPSyncTransport(baseURL: server.url, token: token, http: recorder)
            return try await SyncClient(
                store: DocumentStore(engine: try SQLiteDocumentEngine(path: path)), transport: transport)
        }
        let recordA = RecordingTransport(kind.make(timeout: .seconds(40)))
        let recordB = RecordingTransport(kind.make(timeout: .seconds(40)))
        let a = try await replica("a", recordA)
        let b = try await replica("b", recordB)
        let writes = (0..<20).map {
            JSONValue.object(["op": "set", "path": .string("users/ana/notes/\($0)"), "data": Self.bigData])
        }
        try await a.write(writes)
        try await a.sync()
        try await b.sync()
        for index in [0, 19] {
            let data = try await b.store.document("users/ana/notes/\(index)").getDocument().data
            #expect(data?["name"] == "Ana")
            #expect(data?["notes"] != nil)
        }
        let pushes = recordA.requests.filter { $0.url.hasSuffix("/v1/sync/push") }
        #expect(!pushes.isEmpty)
        #expect(pushes.allSatisfy { $0.header("content-encoding") == "gzip" })
        #expect((recordA.requests + recordB.requests).allSatisfy { $0.header("accept-encoding") == "gzip, deflate" })
        // The pulls came decoded, once: JSON, not gzip's magic bytes.
        #expect(recordB.responses.allSatisfy { $0.body.first == UInt8(ascii: "{") })
        try await recordA.shutdown()
        try await recordB.shutdown()
    }

    @Test("compression off: plain pushes, no Accept-Encoding")
    func syncWithoutCompression() async throws {
        let server = try await CompressionServer.start()
        defer { Task { await server.stop() } }
        let token = try await server.accounts.add("ana")
        let recorder = RecordingTransport(TransportKind.asyncHTTPClient.make())
        let transport = try HTTPSyncTransport(baseURL: server.url, token: token, http: recorder, compression: false)
        let path = server.directory.appendingPathComponent("plain.sqlite").path
        let client = try await SyncClient(
            store: DocumentStore(engine: try SQLiteDocumentEngine(path: path)), transport: transport)
        try await client.write([.object(["op": "set", "path": "users/ana", "data": Self.bigData])])
        try await client.sync()
        #expect(!recorder.requests.isEmpty)
        #expect(
            recorder.requests.allSatisfy { $0.header("accept-encoding") == nil && $0.header("content-encoding") == nil }
        )
        try await transport.shutdown()
    }
}
