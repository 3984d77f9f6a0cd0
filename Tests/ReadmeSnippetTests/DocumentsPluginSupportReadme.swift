// swift-format-ignore-file
// Modules/DocumentsPluginSupport/README.md's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them line by
// line). Compiled, not called: they load a plugin by path (DocumentsPluginSupportTests run the engine through it).
import Documents
import DocumentsPluginSupport
import SuitePluginKit

func documentsPluginSupportReadme() async throws {
    let loaded = try PluginLoader.load(path: "libMemoryDocuments.so")
    let engine: any DocumentEngine = try PluginDocumentEngine(
        plugin: loaded, name: "plugin-memory", callTimeout: .seconds(30))
    let store = DocumentStore(engine: engine)  // used as if the engine were linked in
    try await store.document("users/ana").setData(["points": 1])
}

func documentsPluginSupportReadmeExport() -> UnsafeRawPointer {
    let plugin = PluginExport(name: "MemoryDocuments", version: "1.0.0", engines: [
        .documents("plugin-memory") { _ in InMemoryDocumentEngine() }
    ])
    return plugin.descriptor
}
