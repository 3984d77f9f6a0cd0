public import Documents

/// The Documents module's `memory` engine: ``Documents/InMemoryDocumentEngine``, nothing kept after the command.
/// Its one option is the module's `max-document-size`.
public struct InMemoryDocumentEngineDescription: EngineDescription {
    /// Creates the description.
    public init() {}

    public var name: String { "memory" }
    public var optionKeys: [String] { ["max-document-size"] }
    public var keepsDataInMemory: Bool { true }

    public func options(_ options: EngineOptions) throws {}

    public func make(_ options: Void, in context: SuiteContext) async throws -> any DocumentEngine {
        InMemoryDocumentEngine()
    }
}
