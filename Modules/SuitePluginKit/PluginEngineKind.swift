import SuiteCore

/// A kind of plugin engine: the contract between the host and every plugin engine of that kind — its name on the
/// ABI, its requests (``PluginEngineRequest``), and how its errors cross the boundary.
///
/// Kinds are open: a module declares its own kind as a type, with no change to SuitePluginKit. A JSON kind is a name
/// plus `Codable` request types; a kind on a hot path writes a binary codec with the wire primitives instead (the
/// `documents` kind does).
///
/// ```swift
/// enum CounterKind: PluginEngineKind {
///     static let name = "counter"
/// }
///
/// struct Add: PluginOperation, Codable {
///     typealias Kind = CounterKind
///     static let operationName = "add"
///     var amount: Int
///     struct Response: Codable, Sendable { var total: Int }
/// }
///
/// // Host:   let total = try await PluginEngine<CounterKind>(plugin: loaded, name: "counter").send(Add(amount: 2)).total
/// // Plugin: .engine(CounterKind.self, "counter") { options, host in
/// //             PluginRequestHandler<CounterKind>().on(Add.self) { add in Add.Response(total: add.amount) } }
/// ```
public protocol PluginEngineKind: Sendable {
    /// The kind's name as engines are listed in a plugin's descriptor, e.g. `"observer"`.
    static var name: String { get }

    /// The error the host throws when an engine of this kind fails with `failure` (default: the failure itself).
    static func error(for failure: PluginFailure) -> any Error

    /// The envelope an error thrown by an engine of this kind inside a plugin travels as. The default keeps a
    /// ``PluginFailure`` as is, keeps the code, message and hint of a `SuiteError` or ``PluginError``, and sends any
    /// other error as code `error` with its description.
    static func failure(for error: any Error) -> PluginFailure

    /// The error the host throws when a call itself fails: a non-OK status without an envelope, a malformed
    /// response, a timeout (default: the ``PluginError`` itself).
    static func error(forCallFailure error: PluginError) -> any Error
}

extension PluginEngineKind {
    /// The failure itself.
    public static func error(for failure: PluginFailure) -> any Error { failure }

    /// A ``PluginFailure`` as is; a `SuiteError` or ``PluginError`` with its code, message and hint; any other
    /// error as code `error` with its description.
    public static func failure(for error: any Error) -> PluginFailure {
        switch error {
        case let failure as PluginFailure: failure
        case let error as SuiteError: PluginFailure(code: error.code.description, error.message, hint: error.hint)
        case let error as PluginError: PluginFailure(code: error.code.description, error.message, hint: error.hint)
        default: PluginFailure(code: "error", "\(error)")
        }
    }

    /// The ``PluginError`` itself.
    public static func error(forCallFailure error: PluginError) -> any Error { error }
}

/// A request of a ``PluginEngineKind``: which operation it is sent as, how its payload and its response are encoded,
/// and the type of its response.
///
/// Most requests are one operation each (``PluginOperation``) and `Codable`, so their payloads are JSON with no code
/// to write. A binary kind implements the four coding requirements with `WireWriter` and `WireReader`; one
/// request type may then serve several operations (``operationNames``), as `DocumentEngineRequest` does.
public protocol PluginEngineRequest: Sendable {
    /// The kind this request belongs to.
    associatedtype Kind: PluginEngineKind
    /// What the operation returns on success.
    associatedtype Response: Sendable

    /// Every operation name this type is sent as; a plugin's ``PluginRequestHandler`` routes them to it.
    static var operationNames: [String] { get }

    /// The operation this request is sent as (one of ``operationNames``).
    var operationName: String { get }

    /// The request's payload bytes.
    func encodePayload() throws -> [UInt8]

    /// Reads a request sent as `operation` (inside the plugin). Bytes from the other side are untrusted: throw,
    /// never trap.
    static func decodePayload(operation: String, from bytes: UnsafeRawBufferPointer) throws -> Self

    /// The response's bytes (inside the plugin).
    static func encode(response: Response) throws -> [UInt8]

    /// Reads the response to this request (in the host). Throwing a kind's own error here is allowed (the
    /// `documents` kind throws the `DocumentsError` carried in its binary failure envelope).
    func decodeResponse(from bytes: UnsafeRawBufferPointer) throws -> Response
}

/// A request that is exactly one operation, named by ``operationName``.
public protocol PluginOperation: PluginEngineRequest {
    /// The operation's name on the ABI, e.g. `"add"`.
    static var operationName: String { get }
}

extension PluginOperation {
    /// The one operation, ``operationName``.
    public static var operationNames: [String] { [operationName] }
    /// ``operationName``.
    public var operationName: String { Self.operationName }
}
