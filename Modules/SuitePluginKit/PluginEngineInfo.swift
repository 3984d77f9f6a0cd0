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

/// The names of the engine kinds of this package, as strings (what a descriptor lists and the host looks up).
///
/// A kind itself is a type conforming to ``PluginEngineKind`` (``ObserverEngineKind``, `DocumentsEngineKind`, …);
/// these names are `Kind.name`. The list is open: a module adds its kind's name in an extension.
public enum EngineKind {
    /// Receives bus events (`event`, `events`, `flush` operations): ``ObserverEngineKind/name``.
    public static let observer = ObserverEngineKind.name
    /// A Documents storage engine (`commit`, `get`, `scan`, … operations; see `DocumentsPluginSupport`).
    public static let documents = "documents"
}
