public import Documents
import Foundation
import SuiteTestSupport
public import Testing

/// An engine made for one contract test, with a way to reopen its storage when the engine persists.
public struct DocumentEngineUnderTest: Sendable {
    /// The fresh, empty engine.
    public var engine: any DocumentEngine
    /// Opens a second engine over the same storage (after the first is dropped), or `nil` for an engine that keeps
    /// nothing across instances.
    public var reopen: (@Sendable () async throws -> any DocumentEngine)?

    /// Creates a handle.
    public init(engine: any DocumentEngine, reopen: (@Sendable () async throws -> any DocumentEngine)?) {
        self.engine = engine
        self.reopen = reopen
    }
}

/// A named way to make a fresh engine: the contract suite (`DocumentEngineContractTests`) runs once per factory in
/// ``all``. A plugin engine joins by adding a factory that creates it through the plugin adapter.
public struct DocumentEngineFactory: Sendable, CustomTestStringConvertible {
    /// Shown in test names, e.g. `sqlite`.
    public var name: String
    /// Makes a fresh, empty engine.
    public var make: @Sendable () async throws -> DocumentEngineUnderTest

    /// Creates a factory.
    public init(name: String, make: @escaping @Sendable () async throws -> DocumentEngineUnderTest) {
        self.name = name
        self.make = make
    }

    public var testDescription: String { name }

    /// Every engine the contract suite covers.
    public static let all: [DocumentEngineFactory] = [.inMemory, .sqlite, .sqliteTinyRuns]

    /// ``InMemoryDocumentEngine``.
    public static let inMemory = DocumentEngineFactory(name: "memory") {
        DocumentEngineUnderTest(engine: InMemoryDocumentEngine(), reopen: nil)
    }

    /// ``SQLiteDocumentEngine`` on a new temporary file.
    public static let sqlite = DocumentEngineFactory(name: "sqlite") {
        let path = try TemporaryFiles.newDatabasePath()
        return DocumentEngineUnderTest(
            engine: try SQLiteDocumentEngine(path: path),
            reopen: { try SQLiteDocumentEngine(path: path) }
        )
    }
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
