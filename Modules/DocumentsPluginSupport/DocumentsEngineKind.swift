import Documents
public import SuitePluginKit

/// The `documents` engine kind: a `DocumentEngine` in a plugin. Binary payloads (`DocumentEngineWire`), one
/// request type for every operation (`DocumentEngineRequest`); a `DocumentsError` crosses the boundary with its
/// code, message and hint.
public enum DocumentsEngineKind: PluginEngineKind {
    /// `"documents"` (`EngineKind/documents`).
    public static let name = EngineKind.documents

    /// The `DocumentsError` of the same code (an unknown code name is kept as is).
    public static func error(for failure: PluginFailure) -> any Error {
        documentsError(for: failure)
    }

    static func documentsError(for failure: PluginFailure) -> DocumentsError {
        DocumentsError(DocumentsError.Code(named: failure.code), failure.message, hint: failure.hint)
    }

    /// A `DocumentsError` keeps its code; any other error becomes `storage` with its description.
    public static func failure(for error: any Error) -> PluginFailure {
        let documentsError =
            error as? DocumentsError ?? DocumentsError(.storage, "\(error)", underlying: error)
        return PluginFailure(
            code: documentsError.code.description, documentsError.message, hint: documentsError.hint)
    }

    /// A `storage` `DocumentsError` whose `underlying` is the `PluginError` (a timeout included).
    public static func error(forCallFailure error: PluginError) -> any Error {
        DocumentsError(
            .storage, "documents engine plugin: \(error.message)",
            hint: error.code == .timedOut
                ? error.hint : "the plugin \(error.path ?? "") may be built from another Suite version",
            underlying: error)
    }
}

extension DocumentEngineRequest: PluginEngineRequest {
    /// The kind.
    public typealias Kind = DocumentsEngineKind
    /// Every ``DocumentEngineOperation``.
    public static var operationNames: [String] { DocumentEngineOperation.allCases.map(\.rawValue) }

    /// ``operation``'s name.
    public var operationName: String { operation.rawValue }

    /// ``DocumentEngineWire/encode(_:)-(DocumentEngineRequest)``.
    public func encodePayload() -> [UInt8] { DocumentEngineWire.encode(self) }

    /// ``DocumentEngineWire/decodeRequest(_:from:)-(_,UnsafeRawBufferPointer)``.
    public static func decodePayload(operation: String, from bytes: UnsafeRawBufferPointer) throws
        -> DocumentEngineRequest
    {
        guard let known = DocumentEngineOperation(rawValue: operation) else {
            throw DocumentsError(.unsupported, "unknown documents operation '\(operation)'")
        }
        return try DocumentEngineWire.decodeRequest(known, from: bytes)
    }

    /// ``DocumentEngineWire/encode(_:)-(DocumentEngineResponse)``.
    public static func encode(response: DocumentEngineResponse) -> [UInt8] { DocumentEngineWire.encode(response) }

    /// The response, checked against this request's operation; a failure response is thrown as its
    /// `DocumentsError`.
    public func decodeResponse(from bytes: UnsafeRawBufferPointer) throws -> DocumentEngineResponse {
        let response = try DocumentEngineWire.decodeResponse(operation, from: bytes)
        if case .failure(let error) = response { throw error }
        return response
    }
}
