/// One engine a plugin provides: its kind (`observer`, …) and its name (`eventlog`).
public struct PluginEngineInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The engine kind.
    public var kind: String
    /// The engine's name within its kind.
    public var name: String

    /// Creates an engine description.
    public init(kind: String, name: String) {
        self.kind = kind
        self.name = name
    }

    public var description: String { "\(kind)/\(name)" }
}

/// Engine kinds defined by ABI version 1.
public enum EngineKind {
    /// Receives bus events (`event`, `events`, `flush` operations).
    public static let observer = "observer"
    /// A Documents storage engine (`commit`, `get`, `scan`, … operations; see `DocumentsPluginSupport`).
    public static let documents = "documents"
}
