import SuiteCore
import SuitePluginKit

/// The EventLog plugin's export: one observer engine, `eventlog`.
let eventLogPlugin = PluginExport(
    name: "EventLog", version: "1.0.0",
    engines: [.observer("eventlog") { options in try EventLogObserver(options: options) }])

/// The plugin's entry symbol (see suite_plugin.h).
@_cdecl("suite_plugin_v1")
public func suitePluginV1() -> UnsafeRawPointer {
    eventLogPlugin.descriptor
}
