import DocumentEngineContract
import Documents
import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

extension DocumentEngineFactory {
    /// The plugin engines the contract suite covers here, each created through ``PluginDocumentEngine`` over the real
    /// `libMemoryDocuments.so`.
    static let all: [DocumentEngineFactory] = [.pluginMemory, .pluginSQLite]

    /// `documents/plugin-memory` of MemoryDocuments: an in-memory engine behind the C ABI.
    static let pluginMemory = DocumentEngineFactory(name: "plugin memory") {
        DocumentEngineUnderTest(engine: try PluginFixture.engine("plugin-memory"), reopen: nil)
    }

    /// `documents/plugin-sqlite` of MemoryDocuments on a new temporary file; reopening creates a second plugin engine.
    static let pluginSQLite = DocumentEngineFactory(name: "plugin sqlite") {
        let path = try PluginFixture.newDatabasePath()
        let options = JSONValue.object(["path": .string(path)])
        return DocumentEngineUnderTest(
            engine: try PluginFixture.engine("plugin-sqlite", options: options),
            reopen: { try PluginFixture.engine("plugin-sqlite", options: options) })
    }
}

/// The DocumentEngine contract (Tests/DocumentEngineContract) on the plugin engines of libMemoryDocuments.so,
/// one test case per check and engine.
@Suite("DocumentEngine contract")
struct DocumentEngineContractTests {
    @Test(arguments: DocumentEngineContract.cases(DocumentEngineFactory.all))
    func contract(_ check: DocumentEngineContract.Case) async throws { try await check.run() }
}

/// Loads the built MemoryDocuments plugin (once per process: loading is idempotent, the host never unloads).
enum PluginFixture {
    static func plugin() throws -> LoadedPlugin {
        try PluginLoader.load(path: TestSupport.plugin("MemoryDocuments"))
    }

    static func engine(_ name: String, options: JSONValue = .object([:])) throws -> PluginDocumentEngine {
        // The contract is about results, not deadlines: a parallel test run can keep the pool busy for long
        // stretches (tests that wait on child processes), so calls get ten minutes, not the default 30 s.
        try PluginDocumentEngine(plugin: try plugin(), name: name, options: options, callTimeout: .seconds(600))
    }

    static func newDatabasePath() throws -> String {
        let directory = TestSupport.temporaryRoot.appendingPathComponent("plugin-documents")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
    }
}
