// swift-format-ignore-file
// Modules/CachePluginSupport/README.md's Swift snippets, verbatim (ReadmeSnippetCheck.swift checks them line by line).
// Compiled, not called: they load a plugin from /opt/suite/plugins (CachePluginSupportTests run the same calls).
import Cache
import CachePluginSupport
import SuiteCore
import SuitePluginKit

func cachePluginSupportReadme() async throws {
    let plugin = try PluginLoader(searchDirectories: ["/opt/suite/plugins"]).load("RedisCache")
    let store: any CacheStore = try PluginCacheStore(
        plugin: plugin, name: "redis", options: ["url": "redis://127.0.0.1:6379/0", "prefix": "app:"])
    try await store.store(CacheEntry(key: "greeting", value: Array("hello".utf8)))
    let hit = try await store.entry(forKey: "greeting")
    _ = hit
}

func cachePluginSupportReadmeExport() -> UnsafeRawPointer {
    let export = PluginExport(name: "MyCache", version: "1.0.0", engines: [.cache("mine") { _ in try InMemoryCacheStore() }])
    return export.descriptor
}
