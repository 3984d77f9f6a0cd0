import Foundation

// JSON by default: a `Codable` request is its payload, a `Codable` response is its answer.

extension PluginEngineRequest where Self: Codable {
    /// The request as JSON (its `Codable` encoding).
    public func encodePayload() throws -> [UInt8] {
        Array(try PluginJSONCoding.encoder().encode(self))
    }

    /// Reads the request from JSON.
    public static func decodePayload(operation: String, from bytes: UnsafeRawBufferPointer) throws -> Self {
        try JSONDecoder().decode(Self.self, from: Data(bytes))
    }
}

extension PluginEngineRequest where Response: Codable {
    /// The response as JSON (its `Codable` encoding).
    public static func encode(response: Response) throws -> [UInt8] {
        Array(try PluginJSONCoding.encoder().encode(response))
    }

    /// Reads the response from JSON.
    public func decodeResponse(from bytes: UnsafeRawBufferPointer) throws -> Response {
        try JSONDecoder().decode(Response.self, from: Data(bytes))
    }
}

enum PluginJSONCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
