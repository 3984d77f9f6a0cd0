// swift-format-ignore-file
// Modules/AnalyticsPluginSupport/README.md's Swift snippet, verbatim (ReadmeSnippetCheck.swift checks it line by line).
import Analytics
import AnalyticsPluginSupport
import SuitePluginKit

func analyticsPluginSupportReadmeExport() -> UnsafeRawPointer {
    // In a plugin (a dynamic library product), returned from its `@_cdecl("suite_plugin_v1")` function as in the root
    // README's "Writing a plugin": any AnalyticsEngine, served under a name.
    let plugin = PluginExport(name: "MyAnalytics", version: "1.0.0", engines: [
        .analytics("console") { _, _ in ConsoleAnalyticsEngine() }
    ])
    return plugin.descriptor
}
