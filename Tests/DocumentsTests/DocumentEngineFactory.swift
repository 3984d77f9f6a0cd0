import DocumentEngineContract
import Documents
import Foundation
import SuiteTestSupport
import Testing

extension DocumentEngineFactory {
    /// Every engine the contract covers here: the built-in ones.
    static let all: [DocumentEngineFactory] = [.inMemory, .sqlite, .sqliteTinyRuns]

    /// ``InMemoryDocumentEngine``.
    static let inMemory = DocumentEngineFactory(name: "memory") {
        DocumentEngineUnderTest(engine: InMemoryDocumentEngine(), reopen: nil)
    }

    /// ``SQLiteDocumentEngine`` on a new temporary file.
    static let sqlite = DocumentEngineFactory(name: "sqlite") {
        let path = try TemporaryFiles.newDatabasePath()
        return DocumentEngineUnderTest(
            engine: try SQLiteDocumentEngine(path: path),
            reopen: { try SQLiteDocumentEngine(path: path) }
        )
    }
}

/// The DocumentEngine contract (Tests/DocumentEngineContract) on the built-in engines,
/// one test case per check and engine.
@Suite("DocumentEngine contract")
struct DocumentEngineContractTests {
    @Test(arguments: DocumentEngineContract.cases(DocumentEngineFactory.all))
    func contract(_ check: DocumentEngineContract.Case) async throws { try await check.run() }
}

/// Temporary files for engine tests, under one directory per process.
enum TemporaryFiles {
    static func directory() throws -> URL {
        let url = TestSupport.temporaryRoot.appendingPathComponent("documents-engine")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func newDatabasePath() throws -> String {
        try directory().appendingPathComponent("\(UUID().uuidString).sqlite").path
    }
}
