import Documents
import DocumentsPluginSupport
import Foundation
import Logging
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
        .documents("plugin-sqlite") { options, host in
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
            // Its log (a busy writer, an index flush) goes to the host's log at the host's level.
            return try SQLiteDocumentEngine(
                path: (path as NSString).expandingTildeInPath, durability: durability,
                logger: Logger(label: "suite.documents.plugin-sqlite", factory: host.logHandler))
        },
    ])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    memoryDocumentsPlugin.descriptor
}
