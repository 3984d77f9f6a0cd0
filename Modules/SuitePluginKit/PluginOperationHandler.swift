import Foundation
public import SuiteCore

/// The byte-level face of an engine inside a plugin: one operation name plus a request payload in, response bytes out.
///
/// Plugin authors rarely implement this directly: ``PluginRequestHandler`` serves a kind's typed requests, and
/// `ExportedEngine.observer(_:make:)` wraps an ordinary `ObserverEngine`.
public protocol PluginOperationHandler: Sendable {
    /// Runs `operation` with `request` (JSON by default) and returns the response bytes.
    /// Throwing ``PluginOperationError`` chooses the status; any other error reports `SUITE_STATUS_ERROR`.
    func handle(operation: String, request: [UInt8]) async throws -> [UInt8]
}

/// An error a plugin engine reports back through the ABI with a specific status.
public struct PluginOperationError: SuiteDescribedError {
    /// The operation is not one this engine knows.
    public static func unsupported(_ operation: String) -> PluginOperationError {
        PluginOperationError(status: 2, message: "unsupported operation '\(operation)'")
    }
    /// The request was malformed.
    public static func invalid(_ message: String) -> PluginOperationError {
        PluginOperationError(status: 3, message: message)
    }
    /// The engine failed: `SUITE_STATUS_ERROR` with the failure envelope as JSON, from which the host rebuilds the
    /// kind's error.
    public static func failure(_ failure: PluginFailure) -> PluginOperationError {
        PluginOperationError(status: 1, message: String(decoding: failure.jsonBytes, as: UTF8.self))
    }

    /// A `SUITE_STATUS_*` code.
    public var status: Int32
    /// A message for the host to show.
    public var message: String
    public var description: String { message }
    /// No hint: the host's error rebuilt from the message carries its own.
    public var hint: String? { nil }

    /// Creates an error with a status code and a message.
    public init(status: Int32, message: String) {
        self.status = status
        self.message = message
    }
}
