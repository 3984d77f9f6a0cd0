import Foundation
public import SuiteCore

/// An error that crossed the plugin boundary: the code name, message and hint an engine's error had inside the plugin
/// (its underlying error stays behind). Every kind uses this envelope; a kind turns it back into its own error type
/// with ``PluginEngineKind/error(for:)`` (the `documents` kind rebuilds the same `DocumentsError` code).
///
/// On the wire it is JSON, `{"code":"…","message":"…","hint":"…"}` (hint optional), sent with
/// `SUITE_STATUS_ERROR`; a binary kind may embed it in its own layout as `string` code, `string` message,
/// `string?` hint (`WireWriter/failure(_:)`).
///
/// ```swift
/// throw PluginFailure(code: "negativeAmount", "cannot add -3", hint: "add a positive amount")
/// ```
public struct PluginFailure: SuiteDescribedError, Hashable {
    /// The error code's name, e.g. `preconditionFailed`; kinds define the names they use.
    public var code: String
    /// What went wrong.
    public var message: String
    /// What to do about it.
    public var hint: String?

    /// Creates a failure with a code name, a message and an optional hint.
    public init(code: String, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// The envelope as compact JSON.
    public var json: JSONValue {
        var object: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
        if let hint { object["hint"] = .string(hint) }
        return .object(object)
    }

    /// The envelope encoded as UTF-8 JSON, as a plugin sends it with `SUITE_STATUS_ERROR`.
    public var jsonBytes: [UInt8] { Array(json.jsonString.utf8) }

    /// Reads an envelope from JSON bytes; `nil` when they are not one (e.g. a C plugin's plain-text message).
    public init?(jsonBytes bytes: UnsafeRawBufferPointer) {
        guard bytes.first == UInt8(ascii: "{"), let json = try? JSONValue(parsing: bytes),
            let code = json["code"]?.stringValue, let message = json["message"]?.stringValue
        else { return nil }
        let hint = json["hint"]?.stringValue
        self.init(code: code, message, hint: hint)
    }
}

extension WireWriter {
    /// The binary failure envelope: `string` code, `string` message, `string?` hint.
    package mutating func failure(_ failure: PluginFailure) {
        string(failure.code)
        string(failure.message)
        optionalString(failure.hint)
    }
}

extension WireReader {
    /// Reads the binary failure envelope written by ``WireWriter/failure(_:)``.
    package mutating func failure() throws -> PluginFailure {
        let code = try string()
        let message = try string()
        return PluginFailure(code: code, message, hint: try optionalString())
    }
}
