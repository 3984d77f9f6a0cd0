import Documents
import DocumentsPluginSupport
import Foundation
import SuiteCore
import SuitePluginKit

/// The MemoryDocuments plugin: the built-in Documents engines served through the C ABI, to prove (and test) that a
/// `documents` engine loaded from a plugin behaves exactly like one linked in.
///
/// - `documents/plugin-memory`: an ``InMemoryDocumentEngine``; no options.
/// - `documents/plugin-sqlite`: a ``SQLiteDocumentEngine`` on the file named by option `path` (required); option
///   `durability` is `normal` (default, as built in) or `full`.
let memoryDocumentsPlugin = PluginExport(
    name: "MemoryDocuments", version: "1.0.0",
    engines: [
        .documents("plugin-memory") { _ in InMemoryDocumentEngine() },
        .documents("plugin-sqlite") { options in
            guard let path = options["path"]?.stringValue, !path.isEmpty else {
                throw DocumentsError(
                    .invalidValue, "the sqlite documents engine needs a 'path' option naming its database file",
                    hint: "documents: {engine: plugin-sqlite, options: {path: documents.sqlite}}")
            }
            var durability = SQLiteDocumentEngine.Durability.normal
            if let name = options["durability"]?.stringValue {
                guard let chosen = SQLiteDocumentEngine.Durability(rawValue: name) else {
                    throw DocumentsError(
                        .invalidValue, "unknown durability '\(name)'", hint: "use 'full' or 'normal'")
                }
                durability = chosen
            }
            return try SQLiteDocumentEngine(path: (path as NSString).expandingTildeInPath, durability: durability)
        },
    ])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    memoryDocumentsPlugin.descriptor
}
