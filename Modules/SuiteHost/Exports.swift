// The `suite` executable depends on SuiteHost only (docs/architecture.md): SuiteHost is its one import, and re-exports
// the modules whose types its commands print and take. `make lint` (Tools/import-lint.sh) keeps Modules/suite to that
// one import; SwiftPM's explicit-import check keeps every other target to its declared dependencies.
@_exported import Analytics
@_exported import Cache
@_exported import Documents
@_exported import FirestoreProtocol
@_exported import StorageAccounting
@_exported import SuiteCore
@_exported import SuitePluginKit
@_exported import SuiteServer
@_exported import Sync
@_exported import WorkTracking
