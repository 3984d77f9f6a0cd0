public import Logging
public import SuiteCore

/// A plugin engine of kind `Kind`, called with typed requests: the generic host-side adapter every kind's adapter
/// (`PluginObserverEngine`, `PluginDocumentEngine`, …) is built on.
///
/// ``send(_:)`` encodes the request, calls the plugin with a deadline, and decodes the response; a failure envelope
/// is rethrown as ``PluginEngineKind/error(for:)``, any other failure of the call as
/// ``PluginEngineKind/error(forCallFailure:)``.
///
/// ```swift
/// let counter = try PluginEngine<CounterKind>(plugin: loaded, name: "counter", callTimeout: .seconds(5))
/// let total = try await counter.send(Add(amount: 2)).total
/// ```
public struct PluginEngine<Kind: PluginEngineKind>: Sendable {
    /// The plugin engine behind this adapter.
    public let handle: PluginEngineHandle

    /// Wraps an engine created by ``LoadedPlugin/makeEngine(kind:name:options:services:callTimeout:logger:)``; its
    /// kind should be `Kind.name` (a mismatch shows as unsupported operations or malformed responses).
    public init(handle: PluginEngineHandle) {
        self.handle = handle
    }

    /// Creates the `Kind` engine `name` of `plugin`; see
    /// ``LoadedPlugin/makeEngine(kind:name:options:services:callTimeout:logger:)`` for the parameters.
    public init(
        plugin: LoadedPlugin, name: String, options: JSONValue = .object([:]),
        services: PluginHostServices = .discarding, callTimeout: Duration = PluginEngineHandle.defaultCallTimeout,
        logger: Logger = Logger(label: "suite.plugins", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        self.handle = try plugin.makeEngine(
            kind: Kind.name, name: name, options: options, services: services, callTimeout: callTimeout,
            logger: logger)
    }

    /// Sends `request` and returns its typed response.
    /// - Throws: `Kind.error(for:)` of the engine's failure envelope; `Kind.error(forCallFailure:)` of a
    ///   ``PluginError`` when the call itself fails (timeout, another status, a response that is not the kind's);
    ///   or the kind's own error from decoding the response.
    public func send<Request: PluginEngineRequest>(_ request: Request) async throws -> Request.Response
    where Request.Kind == Kind {
        let operation = request.operationName
        let payload: [UInt8]
        do {
            payload = try request.encodePayload()
        } catch let error as EncodingError {
            throw Kind.error(
                forCallFailure: PluginError(
                    .callFailed, "cannot encode a \(Kind.name) '\(operation)' request: \(error)",
                    path: handle.plugin.path))
        }
        let status: Int32
        let response: [UInt8]
        do {
            (status, response) = try await handle.reply(operation, request: payload)
        } catch let error as PluginError {
            throw Kind.error(forCallFailure: error)
        }
        switch status {
        case 0:
            do {
                return try response.withUnsafeBytes { try request.decodeResponse(from: $0) }
            } catch let error as DecodingError {
                throw Kind.error(forCallFailure: malformed(operation, "\(error)"))
            }
        case 1:
            if let failure = response.withUnsafeBytes({ PluginFailure(jsonBytes: $0) }) {
                throw Kind.error(for: failure)
            }
            fallthrough
        default:
            throw Kind.error(
                forCallFailure: PluginError(
                    .callFailed,
                    "\(handle.plugin.name) engine '\(handle.name)' failed '\(operation)' (status \(status)): "
                        + String(decoding: response, as: UTF8.self),
                    path: handle.plugin.path))
        }
    }

    private func malformed(_ operation: String, _ reason: String) -> PluginError {
        PluginError(
            .callFailed,
            "\(handle.plugin.name) engine '\(handle.name)' answered '\(operation)' with a malformed \(Kind.name) "
                + "response: \(reason)",
            hint: "the plugin may be built from another Suite version", path: handle.plugin.path)
    }
}
