@_spi(Engine) import Cache
public import SuitePluginKit

/// The `cache` engine kind: a `CacheStore` in a plugin. Binary payloads (``CacheStoreWire``), one request type for
/// every operation (``CacheStoreRequest``); a `CacheError` crosses the boundary with its code, message and hint.
public enum CacheEngineKind: PluginEngineKind {
    /// `"cache"` (`EngineKind/cache`).
    public static let name = EngineKind.cache

    /// The `CacheError` of the same code (an unknown code name is kept as is).
    public static func error(for failure: PluginFailure) -> any Error {
        cacheError(for: failure)
    }

    static func cacheError(for failure: PluginFailure) -> CacheError {
        CacheError(CacheError.Code(named: failure.code), failure.message, hint: failure.hint)
    }

    /// A `CacheError` keeps its code; any other error becomes `storage` with its description.
    public static func failure(for error: any Error) -> PluginFailure {
        let cacheError = error as? CacheError ?? CacheError(.storage, "\(error)", underlying: error)
        return PluginFailure(code: cacheError.code.description, cacheError.message, hint: cacheError.hint)
    }

    /// A `storage` `CacheError` whose `underlying` is the `PluginError` (a timeout included).
    public static func error(forCallFailure error: PluginError) -> any Error {
        CacheError(
            .storage, "cache engine plugin: \(error.message)",
            hint: error.code == .timedOut
                ? error.hint : "the plugin \(error.path ?? "") may be built from another Suite version",
            underlying: error)
    }
}

extension EngineKind {
    /// A Cache storage engine (`get`, `store`, `remove`, … operations; see `CachePluginSupport`).
    public static let cache = "cache"
}

extension CacheStoreRequest: PluginEngineRequest {
    /// The kind.
    public typealias Kind = CacheEngineKind
    /// Every ``CacheStoreOperation``.
    public static var operationNames: [String] { CacheStoreOperation.allCases.map(\.rawValue) }

    /// ``operation``'s name.
    public var operationName: String { operation.rawValue }

    /// ``CacheStoreWire/encode(_:)-(CacheStoreRequest)``.
    public func encodePayload() -> [UInt8] { CacheStoreWire.encode(self) }

    /// ``CacheStoreWire/decodeRequest(_:from:)-(_,UnsafeRawBufferPointer)``.
    public static func decodePayload(operation: String, from bytes: UnsafeRawBufferPointer) throws
        -> CacheStoreRequest
    {
        guard let known = CacheStoreOperation(rawValue: operation) else {
            throw CacheError(.unsupported, "unknown cache operation '\(operation)'")
        }
        return try CacheStoreWire.decodeRequest(known, from: bytes)
    }

    /// ``CacheStoreWire/encode(_:)-(CacheStoreResponse)``.
    public static func encode(response: CacheStoreResponse) -> [UInt8] { CacheStoreWire.encode(response) }

    /// The response, checked against this request's operation; a failure response is thrown as its `CacheError`.
    public func decodeResponse(from bytes: UnsafeRawBufferPointer) throws -> CacheStoreResponse {
        let response = try CacheStoreWire.decodeResponse(to: self, from: bytes)
        if case .failure(let error) = response { throw error }
        return response
    }
}
