@_spi(Engine) import Documents
@_spi(Engine) import DocumentsPluginSupport
import Foundation
import Logging
import PostgresNIO
import PostgresTestSupport
import SuiteCore
import SuitePluginKit

/// Issue 16: Documents on PostgreSQL through the PostgresDocuments plugin (a `DocumentStore` on the `postgres` engine,
/// loaded through the C ABI), beside the same operations done directly with postgres-nio on a plain JSONB table with
/// the index the query needs (the limit). Both on one throwaway cluster with PostgreSQL's default, durable settings.
///
/// - bulk import: the store's importer (chunks of 5,000; every field indexed, a change-log row per chunk) vs
///   `INSERT … SELECT FROM unnest(ids, json)` in chunks of 5,000; and (issue 32) vs the rows the engine writes for it
///   written raw with COPY (``PostgresRawWriteSet``), which tells the write set's cost from Suite's;
/// - point get: one document by path vs `SELECT data FROM t WHERE id = $1`, one at a time, JSON decoded;
///   the peer's reads are prepared statements, as the engine's are;
/// - indexed query: `city == X`, first 20 in document-name order vs the same over an index on `(data->>'city', id)`;
/// - and, apart, the C ABI's per-call cost: a get through the MemoryDocuments plugin vs the same engine in process.
enum PostgresBenchmarks {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func run(scale: Double) async throws -> [BenchResult] {
        let binDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let loader = PluginLoader(searchDirectories: [binDirectory])
        let missing = ["PostgresDocuments", "MemoryDocuments"].filter { (try? loader.resolve($0)) == nil }
        guard missing.isEmpty else {
            let commands = missing.map { "swift build -c release --product \($0)" }.joined(separator: " && ")
            FileHandle.standardError.write(Data("postgres: no rows, not built in release: \(commands)\n".utf8))
            return []
        }
        let server = try await PostgresServer.start()
        defer { server.stop() }
        let plugin = try loader.load("PostgresDocuments")
        let count = max(2000, Int(50_000 * scale))
        let documents: [(id: String?, data: DocumentData)] = (0..<count).map { i in
            ("i\(i)", ["city": .string("c\(i % 100)"), "n": .int(Int64(i)), "name": .string("name number \(i)")])
        }

        let peer = try await Peer(server: server)
        defer { peer.stop() }

        let (imports, ours) = try await measureImports(
            server: server, plugin: plugin, peer: peer, documents: documents)

        // Point gets and indexed queries, alternating ours and the peer round by round.
        let gets = max(500, Int(5000 * scale))
        let queries = max(100, Int(1000 * scale))
        var getRate = 0.0
        var peerGetRate = 0.0
        var queryRate = 0.0
        var peerQueryRate = 0.0
        for _ in 0..<3 {
            getRate = max(
                getRate,
                try await bestRate(operations: gets, repeats: 1) {
                    for i in 0..<gets {
                        let snapshot = try await ours.document("items/i\((i * 7919) % count)").getDocument()
                        guard snapshot.exists else { throw PostgresBenchmarks.Failure("items/i\(i) is missing") }
                    }
                })
            peerGetRate = max(
                peerGetRate,
                try await bestRate(operations: gets, repeats: 1) {
                    for i in 0..<gets { try await peer.get("i\((i * 7919) % count)") }
                })
            queryRate = max(
                queryRate,
                try await bestRate(operations: queries, repeats: 1) {
                    for i in 0..<queries {
                        let result = try await ours.collection("items")
                            .whereField("city", isEqualTo: .string("c\(i % 100)")).limit(to: 20).getDocuments()
                        guard result.documents.count == min(20, count / 100) else {
                            throw PostgresBenchmarks.Failure("the query found \(result.documents.count)")
                        }
                    }
                })
            peerQueryRate = max(
                peerQueryRate,
                try await bestRate(operations: queries, repeats: 1) {
                    for i in 0..<queries { try await peer.query(city: "c\(i % 100)", limit: 20) }
                })
        }
        await ours.close()

        // The C ABI alone: the same in-memory engine called in process and through the MemoryDocuments plugin.
        let (viaPlugin, inProcess) = try await abiCost(loader: loader)

        let peerName = "postgres-nio, plain JSONB table"
        return [
            BenchResult(
                name: "bulk import (bodies as bytea)", ours: imports.ours, peer: imports.peer, peerName: peerName,
                unit: "docs/s", target: "≥ 0.5"),
            BenchResult(
                name: "bulk import (bytea + JSONB copy)", ours: imports.oursJSON, peer: imports.peer,
                peerName: peerName, unit: "docs/s"),
            BenchResult(
                name: "bulk import vs its rows written raw", ours: imports.ours, peer: imports.raw,
                peerName: "postgres-nio, the same rows by COPY", unit: "docs/s", target: "≥ 0.8"),
            BenchResult(
                name: "its rows raw vs plain JSONB (the write set)", ours: imports.raw, peer: imports.peer,
                peerName: peerName, unit: "docs/s"),
            BenchResult(
                name: "point get", ours: getRate, peer: peerGetRate, peerName: peerName, unit: "gets/s",
                target: "≥ 0.5"),
            BenchResult(
                name: "indexed query (== , 20 rows)", ours: queryRate, peer: peerQueryRate, peerName: peerName,
                unit: "queries/s", target: "≥ 0.5"),
            BenchResult(
                name: "C ABI: get via plugin vs in process (\(perCall(viaPlugin, inProcess)))", ours: viaPlugin,
                peer: inProcess, peerName: "the same memory engine in process", unit: "gets/s"),
        ]
    }

    /// The best import rate of each way, in docs/s.
    private struct ImportRates {
        var ours = 0.0
        var oursJSON = 0.0
        var peer = 0.0
        var raw = 0.0
    }

    /// Bulk import, four ways: ours with bodies only, ours with the JSONB copy too, the plain JSONB peer, and the rows
    /// ours writes written raw (``PostgresRawWriteSet``). Three rounds, each into new tables, in alternating order:
    /// the machine's noise moves single runs by a fifth. Returns the best of each, and the store of the first round
    /// (for the reads).
    private static func measureImports(
        server: PostgresServer, plugin: LoadedPlugin, peer: Peer, documents: [(id: String?, data: DocumentData)]
    ) async throws -> (ImportRates, DocumentStore) {
        func store(json: Bool, round: Int) throws -> DocumentStore {
            let options: JSONValue = [
                "url": .string(server.url), "schema": .string((json ? "bench_json" : "bench") + "\(round)"),
                "json": .bool(json),
            ]
            return DocumentStore(engine: try PluginDocumentEngine(plugin: plugin, name: "postgres", options: options))
        }
        let count = documents.count
        var rates = ImportRates()
        var rawChunks: [[PostgresRawWriteSet.Row]] = []
        var first: DocumentStore?
        for round in 0..<3 {
            let ours = try store(json: false, round: round)
            let oursJSON = try store(json: true, round: round)
            let raw = try await PostgresRawWriteSet(server: server, schema: "raw\(round)")
            defer { raw.stop() }
            if round > 0 { try await peer.clear() }
            let steps: [() async throws -> Void] = [
                {
                    let rate = try await once(count) {
                        try await ours.importDocuments(into: ours.collection("items"), documents)
                    }
                    rates.ours = max(rates.ours, rate)
                    if rawChunks.isEmpty {
                        // The raw peer's input: the rows ours wrote, read back before its clock starts.
                        rawChunks = try await raw.rows(
                            of: documents.map { "items/\($0.id ?? "")" }, in: "bench\(round)", chunkSize: 5000)
                    }
                },
                {
                    let rate = try await once(count) {
                        try await oursJSON.importDocuments(into: oursJSON.collection("items"), documents)
                    }
                    rates.oursJSON = max(rates.oursJSON, rate)
                },
                { rates.peer = max(rates.peer, try await once(count) { try await peer.importDocuments(documents) }) },
                { rates.raw = max(rates.raw, try await once(count) { try await raw.write(rawChunks) }) },
            ]
            // Ours first in the first round: the raw peer reads the rows it wrote.
            for step in round % 2 == 0 ? steps : steps.reversed() { try await step() }
            await oursJSON.close()
            if round == 0 { first = ours } else { await ours.close() }
        }
        guard let first else { throw Failure("no import round ran") }
        return (rates, first)
    }

    private static func perCall(_ plugin: Double, _ direct: Double) -> String {
        guard plugin > 0, direct > 0 else { return "-" }
        return String(format: "+%.1f µs/call", (1 / plugin - 1 / direct) * 1_000_000)
    }

    private static func once(_ operations: Int, _ body: () async throws -> Void) async throws -> Double {
        try await bestRate(operations: operations, repeats: 1, body)
    }

    private static func abiCost(loader: PluginLoader) async throws -> (Double, Double) {
        let plugin = try PluginDocumentEngine(plugin: try loader.load("MemoryDocuments"), name: "plugin-memory")
        let direct = InMemoryDocumentEngine()
        let body = ValueCodec.encode(["n": 1])
        let mutations = (0..<100).map {
            DocumentMutation(path: "items/d\($0)", kind: .put(body: body, indexEntries: []))
        }
        _ = try await plugin.commit(mutations, commitTime: 1)
        _ = try await direct.commit(mutations, commitTime: 1)
        let calls = 50_000
        var viaPlugin = 0.0
        var inProcess = 0.0
        for _ in 0..<3 {
            viaPlugin = max(
                viaPlugin,
                try await bestRate(operations: calls, repeats: 1) {
                    for i in 0..<calls { _ = try await plugin.documents(at: ["items/d\(i % 100)"]) }
                })
            inProcess = max(
                inProcess,
                try await bestRate(operations: calls, repeats: 1) {
                    for i in 0..<calls { _ = try await direct.documents(at: ["items/d\(i % 100)"]) }
                })
        }
        return (viaPlugin, inProcess)
    }
}

/// The limit: postgres-nio straight on a plain JSONB table.
private final class Peer: Sendable {
    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger = Logger(label: "bench.postgres.peer")

    init(server: PostgresServer) async throws {
        let configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: server.port, username: PostgresServer.user, password: PostgresServer.password,
            database: "postgres", tls: .disable)
        let client = PostgresClient(configuration: configuration)
        self.client = client
        runner = Task { await client.run() }
        try await client.query("CREATE TABLE peer_items (id text PRIMARY KEY, data jsonb NOT NULL)")
        try await client.query("CREATE INDEX peer_items_city ON peer_items ((data->>'city'), id)")
    }

    func importDocuments(_ documents: [(id: String?, data: DocumentData)]) async throws {
        var start = 0
        while start < documents.count {
            let chunk = documents[start..<min(documents.count, start + 5000)]
            let ids = chunk.map { $0.id ?? "" }
            let json = chunk.map { DocumentJSON.json(from: $0.data).jsonString }
            try await client.query(
                "INSERT INTO peer_items (id, data) SELECT * FROM unnest(\(ids)::text[], \(json)::jsonb[])")
            start += 5000
        }
    }

    func get(_ id: String) async throws {
        var found = false
        for try await text in try await client.execute(PeerGet(id: id)) {
            _ = try DocumentJSON.data(parsing: text)
            found = true
        }
        if !found { throw PostgresBenchmarks.Failure("peer: \(id) is missing") }
    }

    func query(city: String, limit: Int) async throws {
        var found = 0
        for try await (_, text) in try await client.execute(PeerQuery(city: city, limit: limit)) {
            _ = try DocumentJSON.data(parsing: text)
            found += 1
        }
        if found == 0 { throw PostgresBenchmarks.Failure("peer: no row for \(city)") }
    }

    /// Empties the table for another round of imports.
    func clear() async throws {
        try await client.query("TRUNCATE peer_items")
    }

    func stop() {
        runner.cancel()
    }
}

/// The peer's point get, prepared (as ours is).
private struct PeerGet: PostgresPreparedStatement {
    typealias Row = String
    static let sql = "SELECT data::text FROM peer_items WHERE id = $1"
    var id: String
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(id)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(String.self) }
}

/// The peer's query, prepared (as ours is).
private struct PeerQuery: PostgresPreparedStatement {
    typealias Row = (String, String)
    static let sql = "SELECT id, data::text FROM peer_items WHERE data->>'city' = $1 ORDER BY id LIMIT $2"
    var city: String
    var limit: Int
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(city)
        bindings.append(limit)
        return bindings
    }
    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
