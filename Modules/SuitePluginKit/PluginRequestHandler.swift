/// Serves a kind's requests inside a plugin: the generic plugin-side handler. Register a body per request type; each
/// call is decoded, run and its response encoded. An unknown operation answers `SUITE_STATUS_UNSUPPORTED`, a request
/// that does not decode `SUITE_STATUS_INVALID`, and an error the body throws travels as the kind's failure envelope
/// (``PluginEngineKind/failure(for:)``) with `SUITE_STATUS_ERROR`.
///
/// ```swift
/// PluginRequestHandler<CounterKind>()
///     .on(Add.self) { add in Add.Response(total: await counter.add(add.amount)) }
///     .on(Total.self) { _ in Total.Response(total: await counter.total) }
/// ```
public struct PluginRequestHandler<Kind: PluginEngineKind>: PluginOperationHandler {
    private typealias Route = @Sendable (String, [UInt8]) async throws -> [UInt8]
    private var routes: [String: Route] = [:]

    /// A handler serving no operation yet.
    public init() {}

    /// The same handler, also serving every operation of `Request` with `body`. A later registration of an
    /// operation name replaces an earlier one.
    public func on<Request: PluginEngineRequest>(
        _ request: Request.Type, _ body: @escaping @Sendable (Request) async throws -> Request.Response
    ) -> PluginRequestHandler where Request.Kind == Kind {
        var copy = self
        for operation in Request.operationNames {
            copy.routes[operation] = { operation, bytes in
                let decoded: Request
                do {
                    decoded = try bytes.withUnsafeBytes { try Request.decodePayload(operation: operation, from: $0) }
                } catch {
                    throw MalformedRequest(error: error)
                }
                return try Request.encode(response: try await body(decoded))
            }
        }
        return copy
    }

    /// The operation names served.
    public var operationNames: [String] { routes.keys.sorted() }

    public func handle(operation: String, request: [UInt8]) async throws -> [UInt8] {
        guard let route = routes[operation] else { throw PluginOperationError.unsupported(operation) }
        do {
            return try await route(operation, request)
        } catch let error as MalformedRequest {
            throw PluginOperationError.invalid("malformed \(Kind.name) '\(operation)' request: \(error.error)")
        } catch {
            throw PluginOperationError.failure(Kind.failure(for: error))
        }
    }
}

/// A request's payload did not decode (as opposed to its body failing).
private struct MalformedRequest: Error {
    let error: any Error
}
