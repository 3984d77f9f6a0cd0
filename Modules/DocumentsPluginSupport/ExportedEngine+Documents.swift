public import Documents
public import SuiteCore
public import SuitePluginKit

extension ExportedEngine {
    /// A Documents storage engine: an ordinary `DocumentEngine` made from the configured options, served as the
    /// `documents` kind (``DocumentsEngineKind``) with the `DocumentEngineWire` payloads.
    ///
    /// ```swift
    /// let plugin = PluginExport(name: "MemoryDocuments", version: "1.0.0", engines: [
    ///     .documents("plugin-memory") { _ in InMemoryDocumentEngine() }
    /// ])
    /// ```
    ///
    /// The host may call a documents engine concurrently; each call runs in its own task, so the engine must be safe
    /// for concurrent use (every `DocumentEngine` is `Sendable` and built for it).
    public static func documents(
        _ name: String, make: @escaping @Sendable (JSONValue) throws -> any DocumentEngine
    ) -> ExportedEngine {
        documents(name) { options, _ in try make(options) }
    }

    /// A Documents storage engine made from the configured options and the host's services (to log, or to publish
    /// events).
    public static func documents(
        _ name: String, make: @escaping @Sendable (JSONValue, PluginHostServices) throws -> any DocumentEngine
    ) -> ExportedEngine {
        engine(DocumentsEngineKind.self, name) { options, host in
            .documents(serving: try make(options, host))
        }
    }
}

extension PluginRequestHandler where Kind == DocumentsEngineKind {
    /// Serves every `documents` operation with `engine`. Anything the engine throws travels back as a failure
    /// response (status OK, tag 0), so the host rebuilds the same `DocumentsError`.
    public static func documents(serving engine: any DocumentEngine) -> PluginRequestHandler {
        let prepared = PreparedCommits()
        return PluginRequestHandler().on(DocumentEngineRequest.self) { request in
            await request.run(on: engine, prepared: prepared)
        }
    }
}

/// Serves the `documents` kind's operations with an ordinary `DocumentEngine`.
///
/// An unknown operation answers `SUITE_STATUS_UNSUPPORTED` and a malformed request `SUITE_STATUS_INVALID`; anything the
/// engine throws travels back as a failure response (status OK), so the host rebuilds the same `DocumentsError`.
public struct DocumentOperationHandler: PluginOperationHandler {
    /// The engine requests run on.
    public let engine: any DocumentEngine
    private let handler: PluginRequestHandler<DocumentsEngineKind>

    /// Serves `engine`.
    public init(engine: any DocumentEngine) {
        self.engine = engine
        self.handler = .documents(serving: engine)
    }

    public func handle(operation: String, request: [UInt8]) async throws -> [UInt8] {
        try await handler.handle(operation: operation, request: request)
    }
}
