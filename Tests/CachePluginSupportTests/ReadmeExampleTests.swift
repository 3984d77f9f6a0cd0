import Cache
import CachePluginSupport
import Foundation
import RedisTestSupport
import SuiteCore
import SuitePluginKit
import SuiteTestSupport
import Testing

/// The CachePluginSupport README's host example, compiled and run (with the test's directories and server).
@Test("the CachePluginSupport README's host example runs as written")
func cachePluginSupportReadmeExample() async throws {
    let server = try RedisServer.start()
    defer { server.stop() }

    let plugin = try PluginLoader(searchDirectories: [TestSupport.binDirectory.path]).load("RedisCache")
    let store: any CacheStore = try PluginCacheStore(
        plugin: plugin, name: "redis", options: ["url": .string(server.url), "prefix": "app:"])
    try await store.store(CacheEntry(key: "greeting", value: Array("hello".utf8)))
    let hit = try await store.entry(forKey: "greeting")

    #expect(hit?.value == Array("hello".utf8))
}

/// The README's plugin-side line (without its `@_cdecl` entry symbol, which a test binary must not export).
@Test("the CachePluginSupport README's plugin export builds a descriptor")
func cachePluginSupportReadmeExport() {
    let export = PluginExport(
        name: "MyCache", version: "1.0.0", engines: [.cache("mine") { _ in DictionaryCacheStore() }])
    #expect(Int(bitPattern: export.descriptor) != 0)
}
