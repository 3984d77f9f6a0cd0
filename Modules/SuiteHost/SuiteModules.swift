/// The modules `suite` registers, in the order `suite status` lists them. Adding a module adds its files and one line
/// here (and its target in Package.swift); a module needs no command of its own to be registered.
package enum SuiteModules {
    /// Every module, each on its defaults.
    package static var all: [any SuiteModule] {
        [
            DocumentsModule(),
            CacheModule(),
            AnalyticsModule(),
            StorageModule(),
            WorkModule(),
            ServerModule(),
            SyncModule(),
            ObserversModule(),
        ]
    }
}
