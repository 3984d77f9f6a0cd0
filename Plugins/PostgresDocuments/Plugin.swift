import Documents
import DocumentsPluginSupport
import Logging
import SuiteCore
import SuitePluginKit

/// The PostgresDocuments plugin: the `documents` engine `postgres`, the Documents module on a PostgreSQL server.
///
/// ```yaml
/// plugins: [PostgresDocuments]
/// documents: {engine: postgres, options: {url: "postgres://suite:secret@127.0.0.1:5432/suite", pool-size: 8}}
/// ```
///
/// Options: see ``PostgresOptions``. Several `suite serve` processes (or any `suite` commands) on the same database
/// and schema share one store: commits from all of them are serialised by the database.
let postgresDocumentsPlugin = PluginExport(
    name: "PostgresDocuments", version: "1.0.0",
    engines: [
        .documents("postgres") { options, host in
            // Its log follows the host's --log-level and lands in the host's log, named by plugin and engine.
            try PostgresDocumentEngine(
                options: try PostgresOptions(options),
                logger: Logger(label: "suite.documents.postgres", factory: host.logHandler))
        }
    ])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    postgresDocumentsPlugin.descriptor
}
