public import Documents
public import SuiteCore
public import SuitePluginKit

extension ExportedEngine {
    /// A Documents storage engine: an ordinary ``DocumentEngine`` made from the configured options, served as the
    /// `documents` kind (``EngineKind/documents``) with the ``DocumentEngineWire`` payloads.
    ///
    /// ```swift
    /// let plugin = PluginExport(name: "MemoryDocuments", version: "1.0.0", engines: [
    ///     .documents("plugin-memory") { _ in InMemoryDocumentEngine() }
    /// ])
    /// ```
    ///
    /// The host may call a documents engine concurrently; each call runs in its own task, so the engine must be safe
    /// for concurrent use (every ``DocumentEngine`` is `Sendable` and built for it).
    public static func documents(
        _ name: String, make: @escaping @Sendable (JSONValue) throws -> any DocumentEngine
    ) -> ExportedEngine {
        ExportedEngine(kind: EngineKind.documents, name: name) { options in
            DocumentOperationHandler(engine: try make(options))
        }
    }
}

/// Serves the `documents` kind's operations with an ordinary ``DocumentEngine``.
///
/// An unknown operation answers `SUITE_STATUS_UNSUPPORTED` and a malformed request `SUITE_STATUS_INVALID`; anything the
/// engine throws travels back as a failure response (status OK), so the host rebuilds the same ``DocumentsError``.
public struct DocumentOperationHandler: PluginOperationHandler {
    /// The engine requests run on.
    public let engine: any DocumentEngine

    /// Serves `engine`.
    public init(engine: any DocumentEngine) {
        self.engine = engine
    }

    public func handle(operation: String, request: [UInt8]) async throws -> [UInt8] {
        guard let op = DocumentEngineOperation(rawValue: operation) else {
            throw PluginOperationError.unsupported(operation)
        }
        let decoded: DocumentEngineRequest
        do {
            decoded = try DocumentEngineWire.decodeRequest(op, from: request)
        } catch {
            throw PluginOperationError.invalid("\(error)")
        }
        return DocumentEngineWire.encode(await decoded.run(on: engine))
    }
}
