import DocumentEngineContract
import Documents
import DocumentsPluginSupport
import Foundation
import PostgresTestSupport
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

extension DocumentEngineFactory {
    /// The engines the contract suite covers here: `postgres` with bodies only, and with the JSONB copy.
    static let all: [DocumentEngineFactory] = [.postgres(json: false), .postgres(json: true)]

    /// `documents/postgres` in a new schema of the shared cluster; reopening creates a second plugin engine on it.
    static func postgres(json: Bool) -> DocumentEngineFactory {
        DocumentEngineFactory(name: json ? "postgres json" : "postgres") {
            let options = try await PostgresFixture.options(json: json)
            return DocumentEngineUnderTest(
                engine: try PostgresFixture.engine(options),
                reopen: { try PostgresFixture.engine(options) })
        }
    }
}

/// The DocumentEngine contract (Tests/DocumentEngineContract) on the `postgres` engine of libPostgresDocuments.so,
/// one test case per check and engine.
@Suite("DocumentEngine contract")
struct DocumentEngineContractTests {
    @Test(arguments: DocumentEngineContract.cases(DocumentEngineFactory.all))
    func contract(_ check: DocumentEngineContract.Case) async throws { try await check.run() }
}

/// Loads the built PostgresDocuments plugin and makes engines in fresh schemas of the process's cluster.
enum PostgresFixture {
    static func plugin() throws -> LoadedPlugin {
        try PluginLoader.load(path: TestSupport.plugin("PostgresDocuments"))
    }

    /// Options for a new, empty schema.
    static func options(json: Bool = false, extra: [String: JSONValue] = [:]) async throws -> JSONValue {
        let server = try await PostgresServer.shared()
        var fields: [String: JSONValue] = [
            "url": .string(server.url),
            "schema": .string("t_\(UUID().uuidString.prefix(12).lowercased())")
                .replacingDashes(), "pool-size": 4, "json": .bool(json),
            // A parallel test run on 2 cores makes debug-built SCRAM logins slow: results, not deadlines, are tested.
            "connect-timeout": 60,
        ]
        for (key, value) in extra { fields[key] = value }
        return .object(fields)
    }

    static func engine(_ options: JSONValue, callTimeout: Duration = .seconds(600)) throws -> PluginDocumentEngine {
        try PluginDocumentEngine(plugin: try plugin(), name: "postgres", options: options, callTimeout: callTimeout)
    }
}

extension JSONValue {
    /// A schema name without the dashes of a UUID.
    fileprivate func replacingDashes() -> JSONValue {
        guard case .string(let text) = self else { return self }
        return .string(text.replacingOccurrences(of: "-", with: "_"))
    }
}
