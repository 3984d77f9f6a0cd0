package import Documents

/// The Documents module's `memory` engine: ``Documents/InMemoryDocumentEngine``, nothing kept after the command.
/// Its one option is the module's `max-document-size`.
package struct InMemoryDocumentEngineDescription: EngineDescription {
    /// Creates the description.
    package init() {}

    package var name: String { "memory" }
    package var optionKeys: [String] { ["max-document-size"] }
    package var keepsDataInMemory: Bool { true }

    package func options(_ options: EngineOptions) throws {}

    package func make(_ options: Void, in context: SuiteContext) async throws -> any DocumentEngine {
        InMemoryDocumentEngine()
    }
}
